#!/usr/bin/env python3
"""Mutation testing of every language against the shared case table.

    python3 harness/mutants/mutants.py [LANGUAGE...] [--sample N] [--only TEXT]
    python3 harness/mutants/mutants.py --restore

`make mutants` is the way in; see README.md. A tool makes the mutants of
the files the harness names (`languages mutants`); each is put in place, its
original kept in target/mutants/pending.json, and judged by `make test` as
a person types it, read from the harness's results file. The harness gives
every judge its deadlines and ends what it starts.
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
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE, WORK = ROOT / "harness" / "mutants", ROOT / "target" / "mutants"
# The original bytes of the file a mutant is in: while it exists, a `make
# test` that is not one of this run's judges (PARITY_MUTANT=1) refuses to run.
PENDING = WORK / "pending.json"


def call(argv: list[str], log: Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> int:
    """Runs `argv`, its output in `log`, in this run's process group: a Ctrl-C
    reaches it as it reaches a `make test` typed by hand."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        return subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out).returncode


def clean_env(*drop: str) -> dict[str, str]:
    """The environment of `make test` as a person types it, not a sub-make of
    `make mutants` (whose MAKEFLAGS would carry LANG=<language>)."""
    gone = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "PARITY_JUNIT", "PARITY_BASE", "PARITY_MUTANT", *drop)
    return {k: v for k, v in os.environ.items() if k not in gone} | {"PARITY_STRICT": "1"}


def harness(command: str) -> list[str]:
    argv = ["cargo", "run", "--quiet", "--package", "parity", "--bin", "languages", "--", command]
    asked = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    return asked.stdout.splitlines() if asked.returncode == 0 else sys.exit(f"mutants: {argv}:\n{asked.stderr[-2000:]}")


def tool(variable: str) -> str:
    return str(ROOT / (os.environ.get(variable) or sys.exit(f"{variable} is not set: run make mutants")))


def put(path: Path, data: bytes) -> None:
    """Writes a mutant over `path`, its original kept in PENDING first."""
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    PENDING.with_suffix(".tmp").write_text(json.dumps({str(shown): base64.b64encode(path.read_bytes()).decode()}))
    PENDING.with_suffix(".tmp").replace(PENDING)
    path.write_bytes(data)


def restore() -> list[str]:
    """Puts back the original PENDING keeps, if any; the files it restored."""
    originals = json.loads(PENDING.read_text()) if PENDING.exists() else {}
    for path, data in originals.items():
        (ROOT / path).write_bytes(base64.b64decode(data))
    PENDING.unlink(missing_ok=True)
    return list(originals)


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
        return f"{self.file}:{self.line}: {squash(self.before)} => {squash(self.after)}"


@dataclass
class Entry:
    """A mutant of `<language>.equivalents`: `file[:N]: line`, then `=> mutated
    line` or `=> *` (every mutant of the line that no judge kills, or only the
    port's unit tests); the reason is the `why:` above it."""

    file: str
    line: int | None
    before: str
    after: str
    where: str
    used: bool = False

    def covers(self, m: Mutant) -> bool:
        star = self.after == "*" and (m.outcome == "survived" or m.kind == "unit")
        same_line = (m.file, squash(m.before)) == (self.file, self.before) and self.line in (None, m.line)
        return same_line and (squash(m.after) == self.after or star)


def read_equivalents(language: str) -> list[Entry]:
    path = HERE / f"{language}.equivalents"
    lines = [line.strip() for line in path.read_text().splitlines()] if path.exists() else []
    entries, why = [], None
    for n, (line, after) in enumerate(zip(lines, [*lines[1:], ""], strict=True), 1):
        if line.startswith("why: "):
            why = line[5:]
        elif line and not line.startswith(("#", "=>")):
            head, _, before = line.partition(": ")
            file, _, number = head.partition(":")
            where = f"{path.relative_to(ROOT)}:{n}"
            if not before or not f"{after} ".startswith("=> ") or why is None:  # `=>` alone: the line emptied
                sys.exit(f"{where}: expected `why: <reason>`, then `<file>: <line>` and `=> <mutant>` under it")
            line_number = int(number) if number.isdigit() else None
            entries.append(Entry(file, line_number, squash(before), squash(after[3:]), where))
    return entries


@dataclass
class Judges:
    """`make test` over one language's trials, judged by its results file: the
    whole parity set (`all`), or the table alone (`table`: `--skip` for every
    trial that is not a case, as the unmutated run's results name them)."""

    where: str  # the trials' prefix and the language
    language: str
    skip: list[str] = field(default_factory=list)

    def skips(self, judge: str) -> str:
        return " ".join(f"--skip {self.where}/{kind}" for kind in self.skip) if judge == "table" else ""

    def __call__(self, judge: str, name: str) -> tuple[list[dict], list[dict]]:
        """The language's trials that failed (none: a pass), and all of them."""
        log = WORK / self.language / "logs" / f"{name}-{judge}.log"
        results = log.with_suffix(".results.json")
        results.unlink(missing_ok=True)
        env = clean_env() | {"PARITY_RESULTS": str(results)} | ({"PARITY_MUTANT": "1"} if PENDING.exists() else {})
        code = call(
            ["make", "--no-print-directory", "test", f"T={self.where}/", f"ARGS={self.skips(judge)}"], log, env=env
        )
        trials = json.loads(results.read_text())["trials"] if results.exists() else []
        trials = [t for t in trials if t["language"] == self.language]
        # An unsupported case was not run (strict fails it): as a missing one, not a kill.
        passed = ("pass", "ignored", "known_failure")
        failed = [t for t in trials if t["verdict"] not in passed and t["state"] != "unsupported"]
        if code == 0 and (failed or not trials):
            sys.exit(f"mutants: make test passed, but {results} says otherwise")
        if code != 0 and not trials:  # make failed before the suite ran (a port that does not build)
            failed = [{"case": "the build or the run", "kind": ""}]
        return failed, trials

    def baseline(self) -> None:
        """The unmutated port passes both judges; its results name the kinds to skip."""
        for judge in ("all", "table"):
            failed, trials = self(judge, "baseline")
            if failed:
                sys.exit(f"{self.language}: the unmutated port fails ({failed[0]['case']}): see {WORK / self.language}")
            if judge == "all":
                self.skip = sorted({t["case"] for t in trials if t["kind"] != "case"})
                cases = [t["case"] for t in trials if t["kind"] == "case"]
                if clash := [case for case in cases if case.startswith(tuple(self.skip))]:
                    sys.exit(f"mutants: --skip would drop the cases {clash} too: they start with a trial's name")

    def judge(self, m: Mutant, index: int) -> None:
        put(Path(m.target) if m.target else ROOT / m.file, m.data)
        try:
            for name in ("table", "all"):
                failed, _ = self(name, f"mutant-{index}")
                if failed:
                    m.outcome = f"killed by {name.replace('table', 'the table')}"
                    m.by, m.kind = failed[0]["case"], failed[0]["kind"]
                    return
            m.outcome = "survived"
        finally:
            restore()


C_LIKE = r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`[^`]*`"""
COMMENTS = {".go": C_LIKE, ".ts": C_LIKE, ".php": C_LIKE + r"|#(?!\[)[^\n]*"}


def code_of(file: str, text: str) -> str:
    """The text without comments and docstrings (for Python, the syntax tree
    without docstrings and the `pass` universalmutator puts for a line)."""
    if not file.endswith(".py"):
        pattern = COMMENTS.get(Path(file).suffix, "(?!)")
        return squash(re.sub(pattern, lambda g: g[0] if g[0][0] in "\"'`" else " ", text, flags=re.DOTALL))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            if isinstance(body := getattr(node, name, None), list) and body:
                setattr(node, name, [s for s in body if not is_docstring_or_pass(s)] or [ast.Pass()])
    return ast.dump(tree)


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


def universalmutator(s: dict, originals: dict[str, str]) -> tuple[list[tuple[str, str]], int]:
    made = []
    for file, text in originals.items():
        name, out = Path(file).name, WORK / s["name"] / "made" / Path(file).stem
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        (out / name).write_text(text)
        argv = [tool("UNIVERSALMUTATOR"), name, s["rules"], "--mutantDir", ".", *s["mutate_args"]]
        if call(argv, WORK / s["name"] / "logs" / f"mutate-{name}.log", cwd=out) != 0:
            sys.exit(f"universalmutator failed on {file}")
        paths = out.glob(f"{Path(file).stem}.mutant.*{Path(file).suffix}")
        made += [(file, p.read_text()) for p in sorted(paths, key=lambda p: int(p.name.split(".")[-2]))]
    return made, 0


def stryker(s: dict, originals: dict[str, str]) -> tuple[list[tuple[str, str]], int]:
    """Stryker in a copy of the port, with a test command that always passes:
    it makes and type-checks the mutants (rerun only when an input changed)."""
    stryker, port, copy = tool("STRYKER"), ROOT / s["root"], WORK / "typescript" / "stryker"
    settings = json.loads((HERE / "typescript.stryker.json").read_text())
    settings["mutate"] = [f"src/{Path(f).name}" for f in s["files"]]
    inputs = [stryker, json.dumps(settings), *((port / n).read_text() for n in ("tsconfig.json", "package-lock.json"))]
    inputs += [f"{p.relative_to(port)}\0{p.read_text()}" for p in sorted((port / "src").rglob("*.ts"))]
    digest, report = hashlib.sha256("\0".join(inputs).encode()).hexdigest(), copy / "reports/mutation/mutation.json"
    stamp = copy / "inputs.sha256"
    if not (report.exists() and stamp.exists() and stamp.read_text() == digest):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(port / "src", copy / "src")
        for name in ("tsconfig.json", "package.json"):
            shutil.copy(port / name, copy / name)
        (copy / "node_modules").symlink_to(port / "node_modules")
        (copy / "stryker.config.json").write_text(json.dumps(settings, indent=2))
        if call([stryker, "run", "stryker.config.json"], WORK / "typescript/logs/stryker.log", cwd=copy) != 0:
            sys.exit("Stryker failed: see target/mutants/typescript/logs/stryker.log")
        stamp.write_text(digest)
    made, not_viable = [], 0
    for name, entry in json.loads(report.read_text())["files"].items():
        file = f"{s['root']}/{name}"
        source, starts = originals[file], [0]
        for line in source.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        for m in entry["mutants"]:
            not_viable += m["status"] == "CompileError"
            if m["status"] not in ("CompileError", "Ignored"):
                a, b = (starts[m["location"][k]["line"] - 1] + m["location"][k]["column"] - 1 for k in ("start", "end"))
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
            known[digest(m)] = call(argv, WORK / s["name"] / "logs" / "check.log", cwd=copy) == 0
            inside.write_text(originals[m.file])
            known_path.write_text(json.dumps(known))
    return [m for m in mutants if known[digest(m)]]


def pitest(s: dict, originals: dict[str, str]) -> list[Mutant]:
    """PIT over a build of its own exports every mutant's class file; each is
    judged put over the harness's build of that class, which stays fresh for a
    judge (PARITY_MUTANT=1) while its inputs do, so the trials run the mutant."""
    build = WORK / "java" / "build"
    classes = (ROOT / os.environ.get("CARGO_TARGET_DIR", "target")).resolve() / "parity" / "java" / "classes"
    shutil.rmtree(build / "pit-reports", ignore_errors=True)
    argv = ["mvn", "--batch-mode", "--quiet", "-f", f"{s['root']}/pom.xml", f"-Dparity.out={build}"]
    if call([*argv, "process-test-classes", "org.pitest:pitest-maven:mutationCoverage"], WORK / "java/logs/pit.log"):
        sys.exit("PIT failed: see target/mutants/java/logs/pit.log")
    detail = re.compile(r"clazz=([\w.$]+),.*filename=([^,]+),.*lineNumber=(\d+), description=(.*), testsInOrder=")
    mutants = []
    exported = (build / "pit-reports" / "export").rglob("details.txt")
    for details in sorted(exported, key=lambda p: (str(p.parents[2]), int(p.parent.name))):
        clazz, filename, line, description = detail.search(details.read_text()).groups()
        file = f"{s['root']}/src/main/java/{clazz.rpartition('.')[0].replace('.', '/')}/{filename}"
        if file in originals:
            [class_file] = details.parent.glob("*.class")
            target = classes / (class_file.name.removesuffix(".class").replace(".", "/") + ".class")
            before = originals[file].splitlines()[int(line) - 1]
            mutants.append(Mutant(file, int(line), before, description, class_file.read_bytes(), str(target)))
    return mutants


def port(s: dict, judges: Judges, sample: int | None, only: str | None) -> tuple[list[Mutant], dict]:
    """Makes the mutants of a port and judges those asked for."""
    originals = {f"{s['root']}/{f}": (ROOT / s["root"] / f).read_text() for f in s["files"]}
    not_viable, comments = 0, 0
    if s["tool"] == "pitest":
        mutants = pitest(s, originals)
    else:
        made, not_viable = (stryker if s["tool"] == "stryker" else universalmutator)(s, originals)
        code, unique = {f: code_of(f, t) for f, t in originals.items()}, {}
        for file, text in made:
            if text != originals[file] and code_of(file, text) == code[file]:
                comments += 1  # a comment or a docstring only: not judged
            elif text != originals[file]:
                unique.setdefault((file, text), describe(file, originals[file], text))
        mutants = viable(s, list(unique.values()), originals)
        not_viable += len(unique) - len(mutants)
    tested = [m for m in mutants if not only or only in m.show()]
    if sample and sample < len(tested):
        tested = [tested[int(i * len(tested) / sample)] for i in range(sample)]
    print(f"{s['name']}: {len(tested)} to judge (of {len(mutants)}), {not_viable} not viable, {comments} comments only")
    for i, m in enumerate(tested, 1):
        judges.judge(m, i)
        print(f"  [{i}/{len(tested)}] {m.outcome}{f' ({m.by})' if m.by else ''}: {m.show()[:150]}", flush=True)
    return tested, {"viable": len(mutants), "not_viable": not_viable, "comments": comments}


def rust(judges: Judges, sample: int | None) -> tuple[list[Mutant], dict]:
    """cargo-mutants over the reference (its own loop and deadlines, in
    scratch copies), by the table alone, then the whole parity set for the
    mutants it missed; `.cargo/mutants.toml` excludes those no judge can kill."""
    common = [tool("CARGO_MUTANTS"), "mutants", "--package", "outbox"]
    kept, every_one = (
        len(subprocess.run([*common, *f, "--list"], capture_output=True, text=True).stdout.splitlines())
        for f in ([], ["--no-config"])
    )
    # The first build in cargo-mutants' copy is cold (the whole workspace,
    # over 600 s on a busy machine); a Rust build does not hang.
    common += ["--test-package=parity", "--baseline=skip", "--no-shuffle", "--timeout", "240"]
    common += ["--build-timeout", "1800"]
    common += ["--shard", f"0/{max(1, kept // sample)}"] if sample else []

    def cargo_mutants(judge: str, only: list[str]) -> dict[str, list[str]]:
        out, log = WORK / f"rust-{judge}", WORK / "rust" / "logs" / f"{judge}.log"
        shutil.rmtree(out, ignore_errors=True)
        names = [a for m in only for a in ("-F", "^" + re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", m) + "$")]
        argv = [*common, *names, "--output", str(out), "--", "--test", "parity", "--", f"{judges.where}/"]
        print(f"rust: cargo-mutants, judged by {judge.replace('table', 'the table')}", flush=True)
        code = call([*argv, *judges.skips(judge).split()], log, env=clean_env("CARGO_TARGET_DIR"))
        print(printed := log.read_text(errors="replace"), end="", flush=True)
        if code not in (0, 2, 3):  # all caught, some missed, some timed out: anything else is no verdict
            sys.exit(f"rust: cargo-mutants failed (exit status {code}): see {log}")
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
        file, line = where.split(":")[:2]
        judged.append(m := Mutant(file, int(line), before, after or "(deleted)", outcome="survived"))
        if name not in table["missed"]:
            m.outcome, m.by = "killed by the table", "the table"
        elif name in every["caught"] + every["timeout"]:
            m.outcome, m.by = "killed by all", "the generated scenarios or the demo"
    excluded = every_one - kept  # by .cargo/mutants.toml: they count as equivalent
    return judged, {"viable": len(judged) + excluded, "not_viable": len(table["unviable"]), "excluded": excluded}


def score(language: str, s: dict, tested: list[Mutant], counts: dict, seconds: float, sample: bool) -> dict:
    """The language's scores, and the problems that fail the run."""
    equivalents, problems, listed = read_equivalents(language), [], 0
    for m in tested:
        if m.outcome.endswith("by the table"):  # `=> *` speaks only for the mutants that survive the table
            wrong = [e for e in equivalents if e.after != "*" and e.covers(m)]
            problems += [f"{e.where}: listed as equivalent, but the table kills it ({m.by}): {m.show()}" for e in wrong]
        elif entry := next((e for e in equivalents if e.covers(m)), None):
            entry.used, listed = True, listed + (m.outcome == "survived")  # the others count as killed by all
        elif m.outcome == "survived":
            problems.append(f"survived, not listed as equivalent: {m.show()}")
        else:
            problems.append(f"the table misses it (killed only by {m.by}): {m.show()}")
    unused = [e for e in equivalents if not e.used and not sample]
    problems += [f"{e.where}: listed, but no mutant the table misses matches it: {e.file}: {e.before}" for e in unused]
    installed = " ".join(os.environ.get(k, "") for k in ("CARGO_MUTANTS", "STRYKER", "UNIVERSALMUTATOR"))
    version = re.search(rf"{s['tool']}-([\w.]+)", installed)
    if s["tool"] == "pitest":  # pinned in the POM
        version = re.search(
            r"pitest-maven</artifactId>\s*<version>([\w.]+)<", (ROOT / s["root"] / "pom.xml").read_text()
        )
    excluded = counts.pop("excluded", 0)
    return {
        "language": language,
        "tool": s["tool"],
        "version": version[1] if version else "?",
        "mutants": len(tested) + excluded,
        **counts,
        "killed_by_table": sum(m.outcome == "killed by the table" for m in tested),
        "killed_by_all": sum(m.outcome != "survived" for m in tested),
        "equivalent": listed + excluded,
        "seconds": round(seconds),
        "sample": sample,
        "problems": problems,
        "mutants_judged": [{k: v for k, v in asdict(m).items() if k not in ("data", "target")} for m in tested],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # Not choices=: Python 3.11's argparse checks the empty list (no
    # language given: every one) against them and refuses it.
    parser.add_argument("languages", nargs="*", metavar="LANGUAGE", help="of the manifests' languages; none: all")
    parser.add_argument("--sample", type=int, help="judge only N mutants, spread evenly over the list")
    parser.add_argument("--only", help="judge only the mutants whose `file:line: before => after` holds this text")
    parser.add_argument("--restore", action="store_true", help="put back the mutated file a killed run left, only")
    args = parser.parse_args()

    def stop(signum: int, _frame: object) -> None:
        """A Ctrl-C for the run's process group (each judge's harness ends its
        runners on it), then for this script, even where SIGINT is ignored."""
        for ignored in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(ignored, signal.SIG_IGN)
        os.killpg(0, signal.SIGINT)
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    WORK.mkdir(parents=True, exist_ok=True)
    lock = (WORK / "lock").open("w")  # one run at a time puts mutants in this tree
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit("mutants: a make mutants is running in this tree; it puts the original back when it ends")
    restored = restore()  # a run killed with SIGKILL left its mutant in place
    if args.restore:
        print(f"mutants: put back {', '.join(restored)}" if restored else "mutants: no mutant was in place")
        return 0
    settings = {s["name"]: s for s in map(json.loads, harness("mutants"))}
    if unknown := [name for name in args.languages if name not in settings]:
        parser.error(f"no such language: {', '.join(unknown)} (choose from {', '.join(settings)})")
    [prefix], results = harness("prefix"), []
    for language in args.languages or list(settings):
        s, started = settings[language], time.monotonic()
        shutil.rmtree(WORK / language / "logs", ignore_errors=True)
        (judges := Judges(f"{prefix}/{language}", language)).baseline()
        ran = rust(judges, args.sample) if s["tool"] == "cargo-mutants" else port(s, judges, args.sample, args.only)
        results.append(score(language, s, *ran, time.monotonic() - started, bool(args.sample or args.only)))
        (WORK / f"{language}.json").write_text(json.dumps(results[-1], indent=2))
    print("\n| language | tool | version | mutants | killed by the table | killed by all | equivalent | run time |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        mutants = f"{r['mutants']} (sample of {r['viable']})" if r["sample"] else r["mutants"]
        cells = [r["language"], r["tool"], r["version"], mutants, r["killed_by_table"], r["killed_by_all"]]
        cells += [r["equivalent"], f"{r['seconds'] // 60}m{r['seconds'] % 60:02d}s"]
        print("|", " | ".join(map(str, cells)), "|")
    problems = [f"{r['language']}: {p}" for r in results for p in r["problems"]]
    print("", *problems, sep="\n")
    if problems:
        print("\nmutants: FAILED (a mutant that survives the table needs a case, or an entry in its .equivalents)")
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        restore()
        sys.exit("mutants: interrupted; the mutated file was put back")
