"""The GitHub workflows: valid by GitHub's schema, and running the README's commands.

The schema is the one check-jsonschema ships (`--builtin-schema
vendor.github-workflows`), so the check needs no network. The README's code
blocks are the reference for the commands: a workflow calls `make test`, not
its own copy of what `make test` does.
"""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
PYTHON = "3.11"  # runtime.txt, and the version the pins are made for
FENCE = re.compile(r"^```(?:bash|sh|console)?\n(.*?)^```", re.M | re.S)


def check_jsonschema(schema, paths):
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema,
         *map(str, paths)], capture_output=True, text=True, timeout=120)


def make_commands(text):
    """`make TARGET` commands in shell text, as 'make TARGET' (comments ignored)."""
    found = []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        if len(words) >= 2 and words[0] == "make":
            found.append(f"make {words[1]}")
    return found


def readme_section(title):
    """The README's text under the heading `## title`, up to the next heading."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"README.md has no section '## {title}'"
    return m.group(1)


def readme_commands(title):
    return [c for block in FENCE.findall(readme_section(title)) for c in make_commands(block)]


def load(path):
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as True
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def steps(job):
    return job.get("steps", [])


def job_commands(job):
    return [c for step in steps(job) for c in make_commands(step.get("run", ""))]


def workflow_commands():
    return {c for path in WORKFLOWS for job in load(path)["jobs"].values()
            for c in job_commands(job)}


def test_there_are_workflows():
    assert {p.name for p in WORKFLOWS} >= {"test.yml", "book.yml"}


@pytest.mark.parametrize("schema", ["vendor.github-workflows",
                                    "custom.github-workflows-require-timeout"])
def test_workflows_are_valid(schema):
    run = check_jsonschema(schema, WORKFLOWS)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_schema_check_rejects_a_broken_workflow(tmp_path):
    broken = yaml.safe_load((ROOT / ".github/workflows/test.yml").read_text())
    broken["jobs"]["test"]["runs-on"] = None
    broken["jobs"]["test"]["steps"][0] = {"uses": "actions/checkout@v6", "runs": "make test"}
    (tmp_path / "broken.yml").write_text(yaml.safe_dump(broken))
    run = check_jsonschema("vendor.github-workflows", [tmp_path / "broken.yml"])
    assert run.returncode == 1, run.stdout + run.stderr
    assert "broken.yml" in run.stdout


def test_the_readme_commands_are_parsed():
    assert readme_commands("Two commands") == ["make book", "make test"]
    assert {"make site-test", "make dist", "make binder-check"} <= set(
        readme_commands("More commands"))


def test_workflows_run_the_readme_commands():
    """Both of the README's two commands, and every command `.ci/run` calls, run on GitHub."""
    missing = set(readme_commands("Two commands")) - workflow_commands()
    assert not missing, f"no workflow runs {sorted(missing)}"
    ci = set(make_commands((ROOT / ".ci" / "run").read_text()))
    assert {"make test", "make book", "make site-test"} <= ci
    assert not ci - workflow_commands(), f"no workflow runs {sorted(ci - workflow_commands())}"


def test_workflows_call_only_documented_commands():
    documented = {c for title in ("Two commands", "More commands")
                  for c in readme_commands(title)}
    undocumented = workflow_commands() - documented
    assert not undocumented, f"in a workflow but not in the README: {sorted(undocumented)}"
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))
    assert {c.split()[1] for c in workflow_commands()} <= targets


def test_the_test_workflow_runs_make_test_on_linux_and_an_arm64_mac():
    wf = load(ROOT / ".github/workflows/test.yml")
    assert "push" in wf["on"] and "pull_request" in wf["on"]
    (job,) = [j for j in wf["jobs"].values() if "make test" in job_commands(j)]
    runners = job["strategy"]["matrix"]["os"]
    assert job["runs-on"] == "${{ matrix.os }}"
    assert "ubuntu-latest" in runners
    # GitHub's arm64 macOS images: macos-14 and later, and macos-latest
    assert any(re.fullmatch(r"macos-(1[4-9]|[2-9]\d|latest)", r) for r in runners), runners
    make_test = [s for s in steps(job) if "make test" in make_commands(s.get("run", ""))]
    assert make_test and "if" not in make_test[0], "make test must run on every runner"
    (setup,) = [s for s in steps(job) if s.get("uses", "").startswith("actions/setup-python@")]
    assert str(setup["with"]["python-version"]) == PYTHON
    assert setup["with"]["cache"] == "pip"


def test_the_book_workflow_builds_tests_and_publishes_the_site():
    wf = load(ROOT / ".github/workflows/book.yml")
    assert "push" in wf["on"] and "pull_request" in wf["on"]
    jobs = wf["jobs"]
    (build,) = [j for j in jobs.values() if "make book" in job_commands(j)]
    commands = job_commands(build)
    assert commands.index("make book") < commands.index("make site-test")
    assert any(".ci/browser-deps" in s.get("run", "") for s in steps(build)), \
        "Chromium and npm must come from Debian, as .ci/run installs them"
    assert str(build["container"]["image"]).startswith(f"python:{PYTHON}-")
    (upload,) = [s for s in steps(build)
                 if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload["with"]["path"] == "_build/html"
    assert "refs/heads/main" in upload["if"]

    (deploy,) = [j for j in jobs.values()
                 if any(s.get("uses", "").startswith("actions/deploy-pages@") for s in steps(j))]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert "refs/heads/main" in deploy["if"] and "pull_request" in deploy["if"]
    assert [n for n, j in jobs.items() if j is build] == [deploy["needs"]]
    # nothing else in the workflow may write
    assert wf["permissions"] == {"contents": "read"}
