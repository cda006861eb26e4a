#!/usr/bin/env python3
"""Mutation testing of every language against the shared case table.

    python3 harness/mutants/mutants.py [LANGUAGE...] [--sample N] [--only TEXT]

`make mutants` is the way in (it installs the pinned tools first). The
languages, their tool and the files to mutate come from the harness
(`languages mutants`); a tool makes the mutants, those that change only
comments or docstrings or do not build are dropped, and each mutant is put
in place in the working tree (restored on every exit; a run killed with
SIGKILL is restored by the next) and judged by `make test` and the
harness's results file: by the table alone, then, if it survived, by the
whole parity set of its language. A survivor must be listed in
`<language>.equivalents` with a reason. See README.md.
"""

from __future__ import annotations

import argparse
import ast
import base64
import difflib
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "harness" / "mutants"
WORK = ROOT / "target" / "mutants"
PENDING = WORK / "pending.json"  # the original bytes of a file a mutant is in


def log_of(language: str, name: str) -> Path:
    return WORK / language / "logs" / f"{name}.log"


def clean_env(*drop: str) -> dict[str, str]:
    """The environment of `make test` as a person types it, not a sub-make of
    `make mutants` (whose MAKEFLAGS would carry LANG=<language>)."""
    gone = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "PARITY_JUNIT", "PARITY_BASE", *drop)
    return {k: v for k, v in os.environ.items() if k not in gone} | {"PARITY_STRICT": "1"}


def harness(command: str) -> list[str]:
    argv = ["cargo", "run", "--quiet", "--package", "parity", "--bin", "languages", "--", command]
    asked = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    if asked.returncode != 0:
        sys.exit(f"mutants: `{' '.join(argv)}` failed:\n{asked.stderr[-2000:]}")
    return asked.stdout.splitlines()


def run(argv: list[str], log: Path, timeout: float, cwd: Path = ROOT, env: dict | None = None) -> str:
    """Runs `argv` in a session of its own: "pass", "fail" or "timeout". The
    session is ended (SIGINT, so the harness ends its runners, then SIGKILL) when the
    deadline passes or the run is stopped."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        child = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True
        )
        try:
            return "pass" if child.wait(timeout) == 0 else "fail"
        except subprocess.TimeoutExpired:
            return "timeout"
        finally:  # SIGINT first, so that the harness ends its runners; then whatever is left
            for sig, grace in ((signal.SIGINT, 10), (signal.SIGKILL, None)):
                try:
                    if sig == signal.SIGKILL or child.poll() is None:
                        os.killpg(child.pid, sig)
                    child.wait(grace)
                except (OSError, subprocess.TimeoutExpired):
                    pass


def put(path: Path, data: bytes) -> None:
    """Writes a mutant over `path`, keeping the original in PENDING first."""
    PENDING.parent.mkdir(parents=True, exist_ok=True)
    PENDING.write_text(json.dumps({str(path): base64.b64encode(path.read_bytes()).decode()}))
    path.write_bytes(data)


def restore() -> None:
    if PENDING.exists():
        for path, data in json.loads(PENDING.read_text()).items():
            Path(path).write_bytes(base64.b64decode(data))
        PENDING.unlink()


def squash(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Mutant:
    file: str  # relative to the repository root
    line: int
    before: str  # the first source line the mutant changes
    after: str  # what the changed lines become, on one line
    data: bytes = b""  # the mutated file (for Java: the class file)
    target: str = ""  # where `data` goes, if not `file`
    outcome: str = "not run"  # killed by the table, killed by all, survived
    by: str = ""  # the first trial that failed
    kind: str = ""  # its kind

    def show(self) -> str:
        return f"{self.file}:{self.line}: {squash(self.before)}\n  => {squash(self.after)}"


@dataclass
class Entry:
    """One mutant of a `<language>.equivalents` list: `file[:N]: line` and
    `=> mutated line`, or `=> *` for every mutant of that line that no judge
    kills or only the port's unit tests do; the reason is the `why:` above."""

    file: str
    line: int | None
    before: str
    after: str
    why: str
    where: str
    used: bool = False

    def covers(self, m: Mutant) -> bool:
        beyond_the_protocol = m.outcome == "survived" or m.kind == "unit"
        return (
            (m.file, squash(m.before)) == (self.file, self.before)
            and self.line in (None, m.line)
            and (squash(m.after) == self.after or (self.after == "*" and beyond_the_protocol))
        )


def read_equivalents(language: str) -> list[Entry]:
    path = HERE / f"{language}.equivalents"
    entries: list[Entry] = []
    lines = [line.strip() for line in path.read_text().splitlines()] if path.exists() else []
    why = None
    for n, line in enumerate(lines):
        where = f"{path.relative_to(ROOT)}:{n + 1}"
        if not line or line.startswith("#") or line.startswith("=> "):
            continue
        if line.startswith("why: "):
            why = line[5:].strip()
            continue
        head, _, before = line.partition(": ")
        after = lines[n + 1] if n + 1 < len(lines) else ""
        if not before or not after.startswith("=> ") or why is None:
            sys.exit(f"{where}: expected `why: <reason>`, then `<file>: <line>` and `=> <mutant>` under it")
        file, _, number = head.partition(":")
        entries.append(
            Entry(file, int(number) if number.isdigit() else None, squash(before), squash(after[3:]), why, where)
        )
    return entries


# ---------------------------------------------------------------- judging


class Judges:
    """`make test` over one language's trials, judged by its results file:
    the whole parity set, and the table alone (`--skip` for every trial
    that is not a case, as the unmutated run's results name them)."""

    def __init__(self, prefix: str, language: str) -> None:
        self.where, self.language = f"{prefix}/{language}", language
        self.skip: list[str] = []
        self.timeout = {"all": 900.0, "table": 900.0}
        for judge in ("all", "table"):
            started = time.monotonic()
            outcome, by, _, trials = self(judge, "baseline")
            if outcome != "pass":
                sys.exit(f"{language}: the unmutated port fails ({by}): see {log_of(language, f'baseline-{judge}')}")
            self.timeout[judge] = 60 + 10 * (time.monotonic() - started)
            if judge == "all":
                self.skip = sorted({t["case"] for t in trials if t["kind"] != "case"})
                cases = [t["case"] for t in trials if t["kind"] == "case"]
                if clash := [c for c in cases if any(c.startswith(k) for k in self.skip)]:
                    sys.exit(f"mutants: --skip would drop the cases {clash} too: they start with a trial's name")

    def argv(self, judge: str) -> list[str]:
        skips = " ".join(f"--skip {self.where}/{kind}" for kind in self.skip) if judge == "table" else ""
        return ["make", "--no-print-directory", "test", f"T={self.where}/", "PARITY_STRICT=1", f"ARGS={skips}"]

    def __call__(self, judge: str, name: str) -> tuple[str, str, str, list[dict]]:
        """The outcome, the first failed trial (case and kind), the trials."""
        log = log_of(self.language, f"{name}-{judge}")
        results = log.with_suffix(".results.json")
        results.unlink(missing_ok=True)
        env = clean_env() | {"PARITY_RESULTS": str(results)}
        outcome = run(self.argv(judge), log, self.timeout[judge], env=env)
        trials = json.loads(results.read_text())["trials"] if results.exists() else []
        trials = [t for t in trials if t["language"] == self.language]
        # An unsupported case was not run (strict fails it): as a missing one, not a kill.
        passed = ("pass", "ignored", "known_failure")
        failed = [t for t in trials if t["verdict"] not in passed and t["state"] != "unsupported"]
        if outcome == "fail" and trials and not failed:
            outcome = "pass"
        if outcome == "pass" and (failed or not trials):
            sys.exit(f"mutants: make test passed, but {results} says otherwise")
        if failed and outcome != "timeout":
            outcome = "fail"
        default = {"case": "timeout" if outcome == "timeout" else "the build or the run", "kind": ""}
        first = failed[0] if failed else default if outcome != "pass" else {"case": "", "kind": ""}
        return outcome, first["case"], first["kind"], trials


def judge(judges: Judges, m: Mutant, index: int, root: Path) -> None:
    def forget() -> None:  # python3 -S -E trusts a .pyc of the same size and second
        for cache in root.rglob("__pycache__") if m.file.endswith(".py") else []:
            shutil.rmtree(cache, ignore_errors=True)

    put(ROOT / (m.target or m.file), m.data)
    try:
        for name in ("table", "all"):
            forget()
            outcome, m.by, m.kind, _ = judges(name, f"mutant-{index}")
            if outcome != "pass":
                timeout = "timeout " if outcome == "timeout" else ""
                m.outcome = f"{timeout}killed by {'the table' if name == 'table' else 'all'}"
                return
        m.outcome = "survived"
    finally:
        restore()
        forget()


# ---------------------------------------------------------------- making mutants

C_LIKE = r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`[^`]*`"""
COMMENTS = {".go": C_LIKE, ".ts": C_LIKE, ".php": C_LIKE + r"|#(?!\[)[^\n]*"}


def code_of(file: str, text: str) -> str:
    """The text without comments and docstrings (for Python, the syntax tree
    without docstrings and the `pass` universalmutator puts for a line)."""
    suffix = Path(file).suffix
    if suffix == ".py":
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return text
        for node in ast.walk(tree):
            for field in ("body", "orelse", "finalbody"):
                body = getattr(node, field, None)
                if isinstance(body, list) and body:
                    setattr(node, field, [s for s in body if not is_docstring_or_pass(s)] or [ast.Pass()])
        return ast.dump(tree)
    if suffix not in COMMENTS:
        return text
    kept = re.sub(COMMENTS[suffix], lambda g: g.group(0) if g.group(0)[0] in "\"'`" else " ", text, flags=re.DOTALL)
    return squash(kept)


def is_docstring_or_pass(s: ast.stmt) -> bool:
    return isinstance(s, ast.Pass) or isinstance(s, ast.Expr) and isinstance(getattr(s.value, "value", None), str)


def describe(file: str, old: str, text: str) -> Mutant:
    a, b = old.splitlines(), text.splitlines()
    changed = [op for op in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if op[0] != "equal"]
    (i1, j1), (i2, j2) = (changed[0][1], changed[0][3]), (changed[-1][2], changed[-1][4])
    if i1 == i2:  # a pure insertion: name the line it follows
        before = a[i1 - 1] if i1 > 0 else ""
        return Mutant(file, i1, before, " ".join([before] + b[j1:j2]), text.encode())
    return Mutant(file, i1 + 1, a[i1], " ".join(b[j1:j2]), text.encode())


def universalmutator(s: dict, originals: dict[str, str]) -> list[tuple[str, str]]:
    mutate = os.environ.get("UNIVERSALMUTATOR") or sys.exit("UNIVERSALMUTATOR is not set: run make mutants")
    made = []
    for file, text in originals.items():
        out = WORK / s["name"] / "made" / Path(file).stem
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        (out / Path(file).name).write_text(text)
        argv = [str(ROOT / mutate), Path(file).name, s["rules"], "--mutantDir", ".", *s["mutate_args"]]
        if run(argv, log_of(s["name"], f"mutate-{Path(file).name}"), 600, cwd=out) != "pass":
            sys.exit(f"universalmutator failed on {file}")
        paths = out.glob(f"{Path(file).stem}.mutant.*{Path(file).suffix}")
        made += [(file, p.read_text()) for p in sorted(paths, key=lambda p: int(p.name.split(".")[-2]))]
    return made


def stryker(s: dict, originals: dict[str, str]) -> tuple[list[tuple[str, str]], int]:
    """Stryker in a copy of the port, with a test command that always passes:
    it makes and type-checks the mutants (rerun only when an input changed)."""
    tool = os.environ.get("STRYKER") or sys.exit("STRYKER is not set: run make mutants")
    port, copy = ROOT / s["root"], WORK / "typescript" / "stryker"
    settings = json.loads((HERE / "typescript.stryker.json").read_text()) | {
        "mutate": [f"src/{Path(f).name}" for f in s["files"]]
    }
    inputs = [tool, json.dumps(settings), *((port / n).read_text() for n in ("tsconfig.json", "package-lock.json"))]
    inputs += [f"{p.relative_to(port)}\0{p.read_text()}" for p in sorted((port / "src").rglob("*.ts"))]
    digest, report = hashlib.sha256("\0".join(inputs).encode()).hexdigest(), copy / "reports/mutation/mutation.json"
    if not ((copy / "inputs.sha256").exists() and (copy / "inputs.sha256").read_text() == digest and report.exists()):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(port / "src", copy / "src")
        for name in ("tsconfig.json", "package.json"):
            shutil.copy(port / name, copy / name)
        (copy / "node_modules").symlink_to(port / "node_modules")
        (copy / "stryker.config.json").write_text(json.dumps(settings, indent=2))
        if (
            run([str(ROOT / tool), "run", "stryker.config.json"], log_of("typescript", "stryker"), 1800, cwd=copy)
            != "pass"
        ):
            sys.exit("Stryker failed: see target/mutants/typescript/logs/stryker.log")
        (copy / "inputs.sha256").write_text(digest)
    made, not_viable = [], 0
    for name, entry in json.loads(report.read_text())["files"].items():
        file = f"{s['root']}/{name}"
        source = originals[file]
        starts = [0]
        for line in source.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        for m in entry["mutants"]:
            not_viable += m["status"] == "CompileError"
            if m["status"] not in ("CompileError", "Ignored"):
                start, end = m["location"]["start"], m["location"]["end"]
                a, b = starts[start["line"] - 1] + start["column"] - 1, starts[end["line"] - 1] + end["column"] - 1
                made.append((file, source[:a] + m["replacement"] + source[b:]))
    return made, not_viable


def viable(s: dict, mutants: list[Mutant], originals: dict[str, str]) -> list[Mutant]:
    """The mutants that pass the manifest's compile check, run in a copy of
    the port; verdicts are kept by content, so a rerun checks only new ones."""
    if not s["check"]:
        return mutants
    copy, known_path = WORK / s["name"] / "check", WORK / s["name"] / "viable.json"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(ROOT / s["root"], copy, ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
    known = json.loads(known_path.read_text()) if known_path.exists() else {}

    def digest(m: Mutant) -> str:
        return hashlib.sha256(f"{s['check']}\0{m.file}\0{m.data.decode()}".encode()).hexdigest()

    for n, m in enumerate(mutants, 1):
        if digest(m) not in known:
            if n % 100 == 0:
                print(f"{s['name']}: compile check {n}/{len(mutants)}", flush=True)
            inside = copy / Path(m.file).relative_to(s["root"])
            inside.write_bytes(m.data)
            argv = [a.replace("{file}", str(inside)) for a in s["check"]]
            known[digest(m)] = run(argv, log_of(s["name"], "check"), 120, cwd=copy) == "pass"
            inside.write_text(originals[m.file])
            known_path.write_text(json.dumps(known))
    return [m for m in mutants if known[digest(m)]]


def pitest(s: dict, originals: dict[str, str]) -> list[Mutant]:
    """PIT over a build of its own exports every mutant's class file; each is
    judged put over the harness's build of that class (whose stamp watches
    the sources, not the classes, so the trials run the mutant)."""
    build = WORK / "java" / "build"
    classes = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")).resolve() / "parity" / "java" / "classes"
    shutil.rmtree(build / "pit-reports", ignore_errors=True)
    argv = ["mvn", "--batch-mode", "--quiet", "-f", f"{s['root']}/pom.xml", f"-Dparity.out={build}"]
    argv += ["process-test-classes", "org.pitest:pitest-maven:mutationCoverage"]
    if run(argv, log_of("java", "pitest"), 1800) != "pass":
        sys.exit("PIT failed: see target/mutants/java/logs/pitest.log")
    detail = re.compile(r"clazz=([\w.$]+),.*filename=([^,]+),.*lineNumber=(\d+), description=(.*), testsInOrder=")
    mutants = []
    exported = (build / "pit-reports" / "export").rglob("details.txt")
    for details in sorted(exported, key=lambda p: (str(p.parents[2]), int(p.parent.name))):
        found, [class_file] = detail.search(details.read_text()), list(details.parent.glob("*.class"))
        clazz, filename, line, description = found.groups()
        file = f"{s['root']}/src/main/java/{clazz.rpartition('.')[0].replace('.', '/')}/{filename}"
        if file in originals:
            source, number = originals[file].splitlines(), int(line)
            target = classes / (class_file.name.removesuffix(".class").replace(".", "/") + ".class")
            mutants.append(Mutant(file, number, source[number - 1], description, class_file.read_bytes(), str(target)))
    return mutants


def port(s: dict, judges: Judges, sample: int | None, only: str | None) -> tuple[list[Mutant], dict]:
    originals = {f"{s['root']}/{f}": (ROOT / s["root"] / f).read_text() for f in s["files"]}
    not_viable, comments = 0, 0
    if s["tool"] == "pitest":
        mutants = pitest(s, originals)
    else:
        made, not_viable = stryker(s, originals) if s["tool"] == "stryker" else (universalmutator(s, originals), 0)
        code = {f: code_of(f, t) for f, t in originals.items()}
        unique: dict[tuple[str, str], Mutant] = {}
        for file, text in made:
            if text != originals[file] and code_of(file, text) == code[file]:
                comments += 1  # a comment or a docstring only: not judged
            elif text != originals[file]:
                unique.setdefault((file, text), describe(file, originals[file], text))
        mutants = viable(s, list(unique.values()), originals)
        not_viable += len(unique) - len(mutants)
    tested = [m for m in mutants if not only or only in m.show().replace("\n  => ", " => ")]
    if sample and sample < len(tested):
        tested = [tested[int(i * len(tested) / sample)] for i in range(sample)]
    print(
        f"{s['name']}: {len(tested)} mutants to judge (of {len(mutants)}), {not_viable} not viable,"
        f" {comments} of comments only",
        flush=True,
    )
    for i, m in enumerate(tested, 1):
        judge(judges, m, i, ROOT / s["root"])
        print(
            f"  [{i}/{len(tested)}] {m.outcome}{f' ({m.by})' if m.by else ''}: {m.show().replace(chr(10), '')[:150]}",
            flush=True,
        )
    return tested, {"viable": len(mutants), "not_viable": not_viable, "comments": comments}


def rust(s: dict, judges: Judges, sample: int | None) -> tuple[list[Mutant], dict]:
    """cargo-mutants over the reference (its own loop, in scratch copies), by
    the table alone, then the whole parity set for the mutants it missed;
    `.cargo/mutants.toml` excludes those no judge can kill."""
    tool = os.environ.get("CARGO_MUTANTS") or sys.exit("CARGO_MUTANTS is not set: run make mutants")
    common = [str(ROOT / tool), *"mutants --package outbox --test-package=parity --baseline=skip".split()]
    # The first build in cargo-mutants' copy is cold (the whole workspace,
    # over 600 s on a busy machine); a Rust build does not hang.
    common += "--no-shuffle --timeout 240 --build-timeout 1800".split()
    common += ["--shard", f"0/{max(1, 26 // sample)}"] if sample else []
    env = clean_env("CARGO_TARGET_DIR")  # cargo-mutants builds in copies of its own

    def cargo_mutants(name: str, only: list[str]) -> dict[str, list[str]]:
        out, skips = WORK / f"rust-{name}", judges.argv(name)[-1].removeprefix("ARGS=").split()
        shutil.rmtree(out, ignore_errors=True)
        names = [a for m in only for a in ("-F", "^" + re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", m) + "$")]
        argv = [*common, *names, "--output", str(out), "--", "--test", "parity", "--", f"{judges.where}/", *skips]
        print(f"rust: cargo-mutants, judged by {'the table' if name == 'table' else 'all'}", flush=True)
        if run(argv, log := log_of("rust", name), 7200, env=env) == "timeout":
            sys.exit("rust: cargo-mutants took over two hours")
        printed = log.read_text(errors="replace")
        print(printed, end="", flush=True)
        if stuck := [line for line in printed.splitlines() if line.startswith("TIMEOUT") and line.endswith(" build")]:
            sys.exit(f"rust: a build timed out, so its mutant was not judged (no test ran to kill it): {stuck[0]}")
        lists = {k: out / "mutants.out" / f"{k}.txt" for k in ("caught", "missed", "timeout", "unviable")}
        return {k: p.read_text().splitlines() if p.exists() else [] for k, p in lists.items()}

    table = cargo_mutants("table", [])
    every = cargo_mutants("all", table["missed"]) if table["missed"] else {"caught": [], "timeout": []}
    judged = []
    for name in table["caught"] + table["timeout"] + table["missed"]:
        where, _, change = name.partition(": ")
        before, _, after = change.partition(" with ")
        m = Mutant(where.split(":")[0], int(where.split(":")[1]), before, after or "(deleted)", outcome="survived")
        if name not in table["missed"]:
            m.outcome, m.by = "killed by the table", "the table"
        elif name in every["caught"] + every["timeout"]:
            m.outcome, m.by = "killed by all", "the generated scenarios or the demo"
        judged.append(m)
    lists = (
        subprocess.run([*common[:4], *f, "--list"], cwd=ROOT, capture_output=True, text=True)
        for f in ([], ["--no-config"])
    )
    kept, every_one = (len(listed.stdout.splitlines()) for listed in lists)
    excluded = every_one - kept  # by .cargo/mutants.toml: they count as equivalent
    return judged, {"viable": len(judged) + excluded, "not_viable": len(table["unviable"]), "excluded": excluded}


# ---------------------------------------------------------------- scoring


def score(language: str, s: dict, tested: list[Mutant], counts: dict, seconds: float, sample: bool) -> dict:
    equivalents, problems, listed = read_equivalents(language), [], 0
    for m in tested:
        if m.outcome.endswith("by the table"):
            for e in equivalents:  # `=> *` speaks only for the mutants of its line that survive the table
                if e.after != "*" and e.covers(m):
                    problems.append(f"{e.where}: listed as equivalent, but the table kills it ({m.by}):\n{m.show()}")
            continue
        if entry := next((e for e in equivalents if e.covers(m)), None):
            entry.used = True
            listed += m.outcome == "survived"  # the others count as killed by all
        elif m.outcome == "survived":
            problems.append(f"survived, not listed as equivalent:\n{m.show()}")
        else:
            problems.append(f"the table misses it (killed only by {m.by}):\n{m.show()}")
    if not sample:
        for e in (e for e in equivalents if not e.used):
            problems.append(
                f"{e.where}: listed as equivalent, but no mutant the table misses matches it:\n"
                f"{e.file}: {e.before}\n  => {e.after}"
            )
    installed = " ".join(os.environ.get(k, "") for k in ("CARGO_MUTANTS", "STRYKER", "UNIVERSALMUTATOR"))
    version = re.search(rf"{s['tool']}-([\w.]+)", installed)
    if s["tool"] == "pitest":  # pinned in the POM
        pom = (ROOT / s["root"] / "pom.xml").read_text()
        version = re.search(r"pitest-maven</artifactId>\s*<version>([\w.]+)<", pom)
    excluded = counts.pop("excluded", 0)
    return {
        "language": language,
        "tool": s["tool"],
        "version": version.group(1) if version else "?",
        "mutants": len(tested) + excluded,
        **counts,
        "killed_by_table": sum(m.outcome.endswith("by the table") for m in tested),
        "killed_by_all": sum(m.outcome != "survived" for m in tested),
        "equivalent": listed + excluded,
        "timeouts": sum(m.outcome.startswith("timeout") for m in tested),
        "seconds": round(seconds),
        "sample": sample,
        "problems": problems,
        "mutants_judged": [{k: v for k, v in asdict(m).items() if k not in ("data", "target")} for m in tested],
    }


def main() -> int:
    settings = {s["name"]: s for s in map(json.loads, harness("mutants"))}
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # Not choices=: Python 3.11's argparse checks the empty list (no
    # language given: every one) against them and refuses it.
    parser.add_argument("languages", nargs="*", metavar="LANGUAGE", help=f"of {', '.join(settings)}; none: all")
    parser.add_argument("--sample", type=int, help="judge only N mutants, spread evenly over the list")
    parser.add_argument("--only", help="judge only the mutants whose `file:line: before => after` holds this text")
    args = parser.parse_args()
    if unknown := [name for name in args.languages if name not in settings]:
        parser.error(f"no such language: {', '.join(unknown)} (choose from {', '.join(settings)})")
    args.languages = args.languages or list(settings)
    [prefix] = harness("prefix")

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    WORK.mkdir(parents=True, exist_ok=True)
    lock = (WORK / "lock").open("w")  # one run at a time puts mutants in this tree
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit("mutants: another make mutants is running in this tree")
    restore()  # a run killed with SIGKILL left its mutant in place
    results = []
    for language in args.languages:
        s, started = settings[language], time.monotonic()
        shutil.rmtree(WORK / language / "logs", ignore_errors=True)
        judges = Judges(prefix, language)
        if s["tool"] == "cargo-mutants":
            tested, counts = rust(s, judges, args.sample)
        else:
            tested, counts = port(s, judges, args.sample, args.only)
        result = score(language, s, tested, counts, time.monotonic() - started, bool(args.sample or args.only))
        results.append(result)
        (WORK / f"{language}.json").write_text(json.dumps(result, indent=2))
    print("\n| language | tool | version | mutants | killed by the table | killed by all | equivalent | run time |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        sample = f" (sample of {r['viable']})" if r["sample"] else ""
        print(
            f"| {r['language']} | {r['tool']} | {r['version']} | {r['mutants']}{sample} | {r['killed_by_table']} "
            f"| {r['killed_by_all']} | {r['equivalent']} | {r['seconds'] // 60}m{r['seconds'] % 60:02d}s |"
        )
    problems = [f"\n{r['language']}: {p}" for r in results for p in r["problems"]]
    print(*problems, sep="\n")
    if problems:
        print(
            "\nmutants: FAILED (a mutant that survives the table needs a case,"
            " or an entry in harness/mutants/<language>.equivalents)"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        restore()
        sys.exit("mutants: interrupted; the mutated file was put back")
