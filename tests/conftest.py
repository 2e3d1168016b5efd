"""Shared test helpers live beside this file (``failing_bots``): pytest puts this folder on
``sys.path`` because of this conftest, so every test folder can import them."""
