"""The architecture's contracts (``[tool.importlinter]`` in ``pyproject.toml``, described in
``ARCHITECTURE.md``): the layers import only downwards, no package has an import cycle, and the
product's path never imports the test equipment in ``sim``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tilecam", "webui", "pipeline", "tracker", "calibration", "vision", "scorer", "sim")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    if not LINT_IMPORTS.exists():
        pytest.skip("import-linter is not installed (setup.sh installs it with the tests)")
    env = {"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_contracts_hold():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 kept, 0 broken" in result.stdout


def copy_of_the_project(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("data", "templates", "static", "__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_an_upward_import_breaks_the_layers(tmp_path):
    copy = copy_of_the_project(tmp_path)
    geometry = copy / "vision" / "geometry.py"
    geometry.write_text(geometry.read_text() + "\nfrom calibration.profile import Profile\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "One direction of flow" in result.stdout and "BROKEN" in result.stdout
    assert "vision.geometry -> calibration.profile" in result.stdout


def test_the_reading_path_importing_the_renderer_breaks_a_contract(tmp_path):
    copy = copy_of_the_project(tmp_path)
    read = copy / "tilecam" / "commands" / "read.py"
    read.write_text(read.read_text() + "\nimport sim.render\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "never imports the test equipment (sim) BROKEN" in result.stdout


def test_a_cycle_inside_a_package_breaks_a_contract(tmp_path):
    copy = copy_of_the_project(tmp_path)
    geometry = copy / "vision" / "geometry.py"
    geometry.write_text(geometry.read_text() + "\nimport vision.rectify\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "No import cycle" in result.stdout
