"""The files in deploy/ (Dockerfile, compose.yaml, nginx.conf) stay in step with the project:
the services are all there, every flag they pass to ``bela serve`` exists, nginx balances
over the same instances and upgrades WebSockets, and the image installs what they need.
Nothing here runs Docker or nginx."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bela.cli.main import app

ROOT = Path(__file__).parents[2]
DEPLOY = ROOT / "deploy"
DOCKERFILE = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
NGINX = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
INSTANCES = ["bela1", "bela2", "bela3"]


@cache
def compose() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def services() -> dict[str, Any]:
    found = compose()["services"]
    assert isinstance(found, dict)
    return found


def argv(command: str | list[str]) -> list[str]:
    """A compose ``command`` (a list, or a string as Compose splits it)."""
    return shlex.split(command) if isinstance(command, str) else [str(a) for a in command]


def option(args: list[str], name: str) -> str | None:
    """The value of ``--name value`` or ``--name=value`` in ``args``."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


@cache
def serve_help() -> str:
    result = CliRunner().invoke(app, ["serve", "--help"],
                                env={"COLUMNS": "250", "TERMINAL_WIDTH": "250"})
    assert result.exit_code == 0, result.output
    return result.output


def dockerfile_cmd() -> list[str]:
    (cmd,) = re.findall(r"^CMD\s+(\[.*\])\s*$", DOCKERFILE, re.M)
    parsed = json.loads(cmd)
    assert isinstance(parsed, list)
    return [str(a) for a in parsed]


def test_compose_has_every_service() -> None:
    found = services()
    assert {"postgres", "redis", *INSTANCES, "proxy"} <= set(found)
    assert str(found["postgres"]["image"]).startswith("postgres:16")
    assert "pg_isready" in str(found["postgres"]["healthcheck"]["test"])
    volumes = [str(v).split(":")[0] for v in found["postgres"].get("volumes", [])]
    assert volumes and all(v in (compose().get("volumes") or {}) for v in volumes)
    assert str(found["redis"]["image"]).startswith("redis:7")
    assert str(found["proxy"]["image"]).startswith("nginx:")


def test_the_proxy_publishes_8080_and_mounts_nginx_conf() -> None:
    proxy = services()["proxy"]
    assert any(str(p).split(":")[0] == "8080" for p in proxy["ports"])
    mounts = [str(v) for v in proxy["volumes"]]
    (conf,) = [m for m in mounts if m.split(":")[0].endswith("nginx.conf")]
    source, target, mode = conf.split(":")
    assert (DEPLOY / source).resolve() == (DEPLOY / "nginx.conf").resolve()
    assert target == "/etc/nginx/nginx.conf" and mode == "ro"


@pytest.mark.parametrize("name", INSTANCES)
def test_each_instance_runs_bela_serve_on_postgres_and_redis(name: str) -> None:
    service = services()[name]
    build = service["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    args = argv(service["command"])
    assert args[:2] == ["bela", "serve"]
    assert option(args, "--host") == "0.0.0.0" and option(args, "--port") == "8000"
    assert option(args, "--instance") == name
    assert str(option(args, "--db")).startswith("postgresql+psycopg://bela:bela@postgres/")
    assert str(option(args, "--redis")).startswith("redis://redis:6379")
    assert option(args, "--log-format") == "json"
    depends = service["depends_on"]
    assert depends["postgres"]["condition"] == "service_healthy"
    assert "redis" in depends
    assert "http://localhost:8000/healthz" in str(service["healthcheck"]["test"])


def test_compose_and_dockerfile_pass_only_flags_bela_serve_has() -> None:
    """Every ``--flag`` given to ``bela serve`` appears in ``bela serve --help``."""
    commands = [argv(services()[name]["command"]) for name in INSTANCES]
    commands.append(dockerfile_cmd())
    flags = {arg.split("=", 1)[0] for args in commands for arg in args if arg.startswith("--")}
    assert "--instance" in flags
    text = serve_help()
    missing = sorted(f for f in flags if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])",
                                                      text))
    assert not missing, f"bela serve has no {', '.join(missing)}"


def test_nginx_balances_over_the_compose_instances() -> None:
    assert NGINX.count("{") == NGINX.count("}")
    (upstream,) = re.findall(r"^\s*upstream\s+(\w+)\s*\{([^}]*)\}", NGINX, re.M)
    name, body = upstream
    servers = re.findall(r"^\s*server\s+([\w.-]+):(\d+)", body, re.M)
    assert servers == [(n, "8000") for n in INSTANCES]
    assert sorted(n for n in services() if n.startswith("bela")) == INSTANCES
    assert f"proxy_pass http://{name};" in NGINX


def test_nginx_upgrades_websockets() -> None:
    assert re.search(r"map\s+\$http_upgrade\s+\$connection_upgrade\s*\{", NGINX)
    assert re.search(r"proxy_http_version\s+1\.1;", NGINX)
    assert re.search(r"proxy_set_header\s+Upgrade\s+\$http_upgrade;", NGINX)
    assert re.search(r"proxy_set_header\s+Connection\s+\$connection_upgrade;", NGINX)
    ws = re.search(r"location\s+/ws/\s*\{([^}]*)\}", NGINX)
    assert ws and re.search(r"proxy_read_timeout\s+\d{4,}s;", ws.group(1))
    assert re.search(r"proxy_set_header\s+X-Forwarded-For\s", NGINX)
    assert re.search(r"proxy_set_header\s+X-Real-IP\s", NGINX)
    assert re.search(r"client_max_body_size\s+64k;", NGINX)


def test_nginx_refuses_metrics() -> None:
    metrics = re.search(r"location\s+(?:\^~\s+|=\s+)?/metrics\s*\{([^}]*)\}", NGINX)
    assert metrics and re.search(r"deny\s+all;", metrics.group(1))


def extras_installed() -> set[str]:
    (spec,) = re.findall(r"pip install [^\n]*'\.\[([\w,-]+)\]'", DOCKERFILE)
    return set(spec.split(","))


def requirements(extras: set[str]) -> list[str]:
    """The requirements of the project's ``extras``, with the extras they name (bela[...])."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    optional: dict[str, list[str]] = project["optional-dependencies"]
    todo, seen, found = list(extras), set(), list(project["dependencies"])
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        assert extra in optional, f"the Dockerfile installs an unknown extra {extra!r}"
        for req in optional[extra]:
            inner = re.fullmatch(r"bela\[([\w,-]+)\]", req.strip())
            if inner:
                todo.extend(inner.group(1).split(","))
            else:
                found.append(req)
    return found


def test_the_image_installs_the_server_and_postgres_extras() -> None:
    assert re.search(r"^FROM python:3\.12-slim\b", DOCKERFILE, re.M)
    assert {"server", "postgres"} <= extras_installed()
    reqs = requirements(extras_installed())
    assert any(r.startswith("psycopg") for r in reqs)
    assert re.search(r"^USER\s+(?!root\b|0\b)\S+", DOCKERFILE, re.M)
    assert re.search(r"^EXPOSE\s+8000\b", DOCKERFILE, re.M)
    assert dockerfile_cmd()[:2] == ["bela", "serve"]


def test_the_image_has_a_redis_client() -> None:
    """compose.yaml passes ``--redis``: the extras the image installs must bring a Redis
    client (``redis``, or ``limits[redis]``)."""
    names = [re.split(r"[<>=!~;\s]", r, maxsplit=1)[0].lower() for r in
             requirements(extras_installed())]
    assert any(n == "redis" or (n.startswith("limits[") and "redis" in n) for n in names), names
