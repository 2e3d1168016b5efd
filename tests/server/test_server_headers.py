"""Every refusal in the documented error shape, Starlette's own too (an unknown route, a
deeply nested JSON body), and the pages' security headers (docs/SECURITY.md)."""

from __future__ import annotations

from pathlib import Path

from server_helpers import guest, server


def shaped(r: object, status: int, code: str) -> None:
    assert r.status_code == status, r.text  # type: ignore[attr-defined]
    body = r.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body


def test_unknown_routes_and_deep_json_are_refused_in_the_error_shape(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        shaped(client.get("/api/nothing-here"), 404, "not_found")
        shaped(client.delete("/api/variants"), 405, "method_not_allowed")
        _, h = guest(client, "Ana")
        headers = {**h, "Content-Type": "application/json"}
        for deep in ("[" * 20000, '{"a":' * 5000):
            shaped(client.post("/api/tables", content=deep.encode(), headers=headers), 400,
                   "bad_json")


def test_the_pages_have_a_content_security_policy(tmp_path: Path) -> None:
    with server(tmp_path) as client:
        for path in ("/", "/pad", "/analysis", "/web/app.js", "/api/variants"):
            r = client.get(path)
            assert r.status_code == 200, path
            csp = r.headers["Content-Security-Policy"]
            assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
            assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
            assert r.headers["X-Content-Type-Options"] == "nosniff"
            assert r.headers["X-Frame-Options"] == "DENY"
