"""What actionlint lets pass in a workflow's shell, each once a CI failure
that passed in silence (`make lint-workflows`). Each workflow is parsed
(PyYAML, pinned by the Makefile) and every `run` step is checked as GitHub
runs it, so a bug written another way is still found:

- its shell (the step's `shell`, else its job's `defaults.run.shell`, else
  the workflow's, else bash without pipefail) must be bash, whose pipefail
  fails `make fuzz | tee` when make fails;
- no `echo` or `printf` may print a command substitution, `$(...)` or
  backticks: the command's failure is lost (assign it first, then print);
- a language's filter (`practice/${{ ... }}`) must end with its `/`, once
  the `env` the step sees is put in for `$NAME` and `${NAME}`: without it,
  `.../java` also selects a language named `javascript`.

Usage: python3 -S .github/lint_workflows.py WORKFLOW.yml...; each problem
is printed naming the file, the job and the step, and the exit code is 1.
"""

import re
import sys
from typing import Any

import yaml

SUBSTITUTION = re.compile(r"\$\(|`")
FILTER_WITHOUT_SLASH = re.compile(r"practice/\$\{\{[^}]*\}\}(?!/)")
PRINT = re.compile(r"(?:^|[;&|(]|\bthen|\bdo|\belse)\s*(?:echo|printf)\b([^;&|]*)", re.MULTILINE)
NO_PIPEFAIL = "without pipefail: a pipeline hides a failure (say `shell: bash`)"
PRINTED = "echo or printf of a command substitution: its failure is lost; assign it first (x=$(cmd)), then print"
NO_SLASH = "a language's filter without its closing /: it also selects every language whose name starts so"


def shell_of(step: dict[str, Any], job: dict[str, Any], workflow: dict[str, Any]) -> str | None:
    """The shell GitHub runs the step with; None for its default."""
    for owner in (step, job.get("defaults", {}).get("run", {}), workflow.get("defaults", {}).get("run", {})):
        if "shell" in owner:
            return str(owner["shell"])
    return None


def resolved(script: str, env: dict[str, Any]) -> str:
    """The script with each variable of `env` put in for `$NAME` and `${NAME}`."""
    for name, value in env.items():
        pattern = rf"\$(?:\{{{re.escape(name)}\}}|{re.escape(name)}\b)"
        script = re.sub(pattern, str(value).replace("\\", "\\\\"), script)
    return script


def step_problems(step: dict[str, Any], job: dict[str, Any], workflow: dict[str, Any]) -> list[str]:
    """What is wrong with one `run` step, as GitHub runs it."""
    found = []
    shell = shell_of(step, job, workflow)
    if shell != "bash" and "pipefail" not in (shell or ""):
        found.append(f"runs with {shell or 'the default shell'}, {NO_PIPEFAIL}")
    script = str(step["run"])
    if any(SUBSTITUTION.search(printed) for printed in PRINT.findall(script)):
        found.append(PRINTED)
    env = {**(workflow.get("env") or {}), **(job.get("env") or {}), **(step.get("env") or {})}
    if FILTER_WITHOUT_SLASH.search(resolved(script, env)):
        found.append(NO_SLASH)
    return found


def problems(path: str) -> list[str]:
    """Every problem of the workflow at `path`, one line each, naming the job and the step."""
    try:
        with open(path, encoding="utf-8") as file:
            workflow = yaml.safe_load(file) or {}
    except (OSError, yaml.YAMLError) as error:
        return [f"{path}: cannot be read as a workflow: {error}"]
    found = []
    for job_name, job in (workflow.get("jobs") or {}).items():
        for number, step in enumerate(job.get("steps") or [], 1):
            if "run" in step:
                name = step.get("name") or step.get("id") or "unnamed"
                where = f"{path}: job {job_name}, step {number} ({name})"
                found.extend(f"{where}: {problem}" for problem in step_problems(step, job, workflow))
    return found


def main(paths: list[str]) -> int:
    """Prints every problem of the workflows at `paths`; 1 if there is one."""
    found = [problem for path in paths for problem in problems(path)]
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
