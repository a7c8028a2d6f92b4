"""The console fixtures (AppTest on an isolated home) for the console's access tests."""

from tests.console.conftest import console, console_home, pack_copy  # noqa: F401
