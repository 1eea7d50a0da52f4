"""Check offline that Binder would build the book's image as the book expects.

Usage (what `make binder-check` runs)::

    .venv/bin/python tools/binder_check.py [REPO]      # REPO defaults to this repository

Binder builds the image with repo2docker. ``jupyter-repo2docker --no-build`` reads
the repository's configuration files and prints the Dockerfile it would build,
without a container engine and without the network. This script runs it and
checks that the image would

- run Python 3.11 (``runtime.txt``: ``python-3.11``), the version the pins in
  requirements.txt and the stored notebook outputs are made with, and
- install the root ``requirements.txt`` with the kernel's pip,

and that requirements.txt parses, with every package pinned exactly (the
notebooks' stored outputs depend on the versions). A broken or missing
runtime.txt, a missing or renamed requirements.txt, or a configuration file that
takes precedence over them (``environment.yml``, a ``binder/`` folder) fails it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

ROOT = Path(__file__).resolve().parents[1]
PYTHON = "3.11"
# What repo2docker logs, and the conda lock file its Dockerfile copies, for the chosen Python.
LOGGED_PYTHON = re.compile(r"Building conda environment for python=(\S+)")
# Files repo2docker copies into the image, named by their escaped source path: "-2e" is ".".
BUILD_SCRIPT = re.compile(r"^COPY .*build_script_files/(\S+) ", re.M)
ESCAPED_BYTE = re.compile(r"-([0-9a-f]{2})")
LOCKED_PYTHON = re.compile(r"environment\.py-(\d+\.\d+)-[\w-]+\.lock")
# The kernel's pip installing the root requirements.txt, as repo2docker writes it.
INSTALLS_REQUIREMENTS = re.compile(
    r'^RUN \$\{KERNEL_PYTHON_PREFIX\}/bin/pip install\b.* -r "?requirements\.txt"?$', re.M)


def run_repo2docker(repo: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """``repo2docker --no-build REPO``: the Dockerfile on stdout, its log on stderr.

    For linux/amd64, what mybinder.org builds, on any machine (an arm64 Mac included).
    """
    return subprocess.run(
        [sys.executable, "-m", "repo2docker", "--Repo2Docker.platform=linux/amd64",
         "--no-build", str(repo)],
        capture_output=True, text=True, timeout=timeout)


def requirement_problems(path: Path) -> list[str]:
    """Lines of a requirements file that do not parse or do not pin one exact version."""
    problems = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#") or line == "-e .":
            continue  # "-e .": boostlib itself, from the repository
        try:
            req = Requirement(line)
        except InvalidRequirement as error:
            problems.append(f"{path.name}:{n}: {line!r} does not parse: {error}")
            continue
        specs = list(req.specifier)
        if len(specs) != 1 or specs[0].operator not in ("==", "===") or "*" in specs[0].version:
            problems.append(f"{path.name}:{n}: {line!r} is not pinned to one version (==)")
    return problems


def binder_problems(repo: Path, python: str = PYTHON) -> list[str]:
    """Why Binder would not build the image the book expects from ``repo`` (empty if it would)."""
    run = run_repo2docker(repo)
    if run.returncode != 0:
        last = [line for line in run.stderr.strip().splitlines() if line.strip()][-1:]
        return [f"repo2docker rejects the repository: {' '.join(last) or 'no message'}"]
    problems = []
    logged = LOGGED_PYTHON.findall(run.stderr + run.stdout)
    if logged != [python]:
        problems.append(f"the image would run Python {', '.join(logged) or '(not said)'}, "
                        f"not {python}: runtime.txt must say python-{python}")
    copied = [ESCAPED_BYTE.sub(lambda m: chr(int(m[1], 16)), name)
              for name in BUILD_SCRIPT.findall(run.stdout)]
    locked = {m for name in copied for m in LOCKED_PYTHON.findall(name)}
    if locked != {python}:
        problems.append(f"the Dockerfile installs the conda environment for Python "
                        f"{', '.join(sorted(locked)) or '(none)'}, not {python}")
    if not INSTALLS_REQUIREMENTS.search(run.stdout):
        problems.append("the Dockerfile does not pip-install the root requirements.txt "
                        "(missing, renamed, or shadowed by environment.yml or binder/)")
    requirements = repo / "requirements.txt"
    if requirements.is_file():
        problems += requirement_problems(requirements)
    return problems


def main(argv: list[str]) -> int:
    repo = Path(argv[0]) if argv else ROOT
    problems = binder_problems(repo)
    for problem in problems:
        print(f"binder-check: {problem}", file=sys.stderr)
    if not problems:
        print(f"binder-check: repo2docker would build {repo.resolve().name} with Python "
              f"{PYTHON} and install requirements.txt")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
