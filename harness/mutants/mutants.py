#!/usr/bin/env python3
"""Mutation testing of every language against the shared case table.

    python3 harness/mutants/mutants.py go [python php typescript java rust] [--sample N]

`make mutants` is the way in (it installs the pinned tools first). For a
port, a tool makes the mutants of the four parts and the message type
(its manifest's `[mutants]` table, `runners/<language>/language.toml`,
names the tool and the files); those that change only comments or
docstrings are dropped, a compile check drops those that do not build, and
each remaining mutant is put in place in a copy of the tree
(target/mutants/<language>/tree; the working tree is never written) and
judged twice by the harness's results file: by the table alone, then (if
it survived) by the whole parity set of its language. A mutant the table
does not kill must be listed in `<language>.equivalents` with a reason, or
the run fails; a listed mutant that the table kills fails it too, so the
list cannot go stale. Rust is cargo-mutants over the reference, with
`.cargo/mutants.toml` as its list. The trial prefix, the languages and the
kinds of trial that are not cases come from the harness.
"""

from __future__ import annotations

import argparse
import ast
import base64
import difflib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "harness" / "mutants"
WORK = ROOT / "target" / "mutants"


@dataclass
class Trials:
    """What the harness says about its trials: the prefix of their names and
    the languages, in its order (`--list`)."""

    prefix: str
    languages: list[str]


def ask_harness() -> Trials:
    """The harness's trial names are `<prefix>/<language>/<trial>`; asking it
    for the prefix and the languages (`languages prefix`, `languages names`)
    keeps them in one place, and no trial's name is taken apart."""

    def ask(command: str) -> list[str]:
        argv = ["cargo", "run", "--quiet", "--package", "parity", "--bin", "languages", "--", command]
        asked = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
        if asked.returncode != 0 or not asked.stdout.split():
            sys.exit(f"mutants: `{' '.join(argv)}` said nothing:\n{asked.stderr[-2000:]}")
        return asked.stdout.split()

    [prefix] = ask("prefix")
    return Trials(prefix, ask("names"))


def language_settings(language: str) -> dict:
    """Everything mutants.py knows about a language, in one place: its
    manifest's [mutants] table (runners/<language>/language.toml), which
    names the tool, the port's folder and the files to mutate."""
    path = ROOT / "runners" / language / "language.toml"
    if not path.exists():
        sys.exit(f"mutants: {language}: no {path.relative_to(ROOT)} says what to mutate")
    settings = tomllib.loads(path.read_text()).get("mutants")
    if settings is None:
        sys.exit(f"mutants: {language}: {path.relative_to(ROOT)} has no [mutants] table")
    return settings


def squash(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Mutant:
    file: str  # relative to the repository root
    line: int
    before: str  # the first source line the mutant changes
    after: str  # what the changed lines become, on one line
    text: str  # the whole mutated file
    outcome: str = "not run"  # killed by the table, by all, survived, timeout
    by: str = ""  # the first trial that failed

    def key(self) -> tuple[str, str, str]:
        return (self.file, squash(self.before), squash(self.after))

    def show(self) -> str:
        return f"{self.file}:{self.line}: {squash(self.before)}\n  => {squash(self.after)}"


@dataclass
class Equivalent:
    file: str
    before: str
    after: str  # "*": every mutant of the line
    why: str
    where: str  # the list's file and line, for messages
    line: int | None = None  # only where the same line text occurs twice
    used: bool = False

    def covers(self, mutant: Mutant) -> bool:
        """`=> *` speaks only for the mutants of its line that no judge
        kills, or that only the port's own unit tests kill (they check what
        no request can reach: the refusal of an old id, errors that are not
        publish failures); one that only the generated scenarios or the demo
        kill needs an entry of its own, so that a gap in the table is never
        hidden."""
        file, before, after = mutant.key()
        beyond_the_protocol = mutant.outcome == "survived" or mutant.by == "unit"
        return (
            file == self.file
            and self.line in (None, mutant.line)
            and before == self.before
            and (after == self.after or (self.after == "*" and beyond_the_protocol))
        )


def read_equivalents(path: Path) -> list[Equivalent]:
    """Entries of three lines: `<file>[:<number>]: <line>`, `=> <mutated line>`
    (or `=> *`: every mutant of the line), `why: <reason>`."""
    entries: list[Equivalent] = []
    if not path.exists():
        return entries
    lines = path.read_text().splitlines()
    i = 0
    problems = []
    while i < len(lines):
        raw = lines[i]
        if not raw.strip() or raw.lstrip().startswith("#"):
            i += 1
            continue
        where = f"{path.relative_to(ROOT)}:{i + 1}"
        head, _, before = raw.partition(": ")
        after = lines[i + 1].strip() if i + 1 < len(lines) else ""
        why = lines[i + 2].strip() if i + 2 < len(lines) else ""
        if not before or not after.startswith("=> ") or not why.startswith("why: "):
            problems.append(f"{where}: expected `<file>: <line>`, `  => <mutant>`, `  why: <reason>`")
            i += 1
            continue
        file, _, number = head.strip().partition(":")
        entries.append(
            Equivalent(
                file,
                squash(before),
                squash(after[3:]),
                why[5:].strip(),
                where,
                int(number) if number.isdigit() else None,
            )
        )
        i += 3
    if problems:
        sys.exit("\n".join(problems))
    return entries


# ---------------------------------------------------------------- processes


def end_session(sid: int, inside: Path | None = None) -> None:
    """SIGKILL every process of the session `sid`: the judge and every runner
    it started, even those in process groups of their own (with `inside`,
    only those working in that folder: a session left by a killed run)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid:  # fields after the name: state ppid pgrp session
            try:
                if inside and not Path(os.readlink(entry / "cwd")).is_relative_to(inside):
                    continue
                os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


def run(
    argv: list[str],
    log: Path,
    timeout: float,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
    session: Path | None = None,
) -> str:
    """Runs `argv` in a session of its own; returns "pass", "fail" or
    "timeout". `session` keeps the session's id while it runs, so that the
    next run can end what a SIGKILL of this one left behind."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        child = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if session:
            session.write_text(str(child.pid))
        try:
            code = child.wait(timeout)
            result = "pass" if code == 0 else "fail"
        except subprocess.TimeoutExpired:
            result = "timeout"
        finally:
            end_session(child.pid)
            child.wait()
            if session:
                session.unlink(missing_ok=True)
    return result


def cargo_target(language: str) -> Path:
    """Each copy of the tree has a cargo target folder of its own: the harness
    finds the tree by the path built into it (CARGO_MANIFEST_DIR), so one
    build cannot serve two copies; and no mutant's build reaches the working
    tree's target/parity."""
    return WORK / language / "target"


def judge_env(language: str, results: Path) -> dict[str, str]:
    env = dict(os.environ)
    # The judge is `make test` as a person types it, not a sub-make of
    # `make mutants` (whose MAKEFLAGS would carry LANG=<language>).
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "PARITY_JUNIT", "PARITY_BASE"):
        env.pop(name, None)
    env |= {"PARITY_STRICT": "1", "CARGO_TARGET_DIR": str(cargo_target(language)), "PARITY_RESULTS": str(results)}
    return env


@dataclass
class Judge:
    """One judge of a language: its trials (all, or without the kinds
    `skip` names), run with `make test` in a copy of the tree."""

    trials: Trials
    language: str
    tree: Path
    skip: list[str]

    def argv(self) -> list[str]:
        where = f"{self.trials.prefix}/{self.language}"
        argv = ["make", "--no-print-directory", "test", f"T={where}/", "PARITY_STRICT=1"]
        if self.skip:
            argv.append("ARGS=" + " ".join(f"--skip {where}/{name}" for name in self.skip))
        return argv

    def __call__(self, log: Path, timeout: float) -> tuple[str, str, list[dict]]:
        """Returns "pass", "fail" or "timeout", the first trial that failed
        (by the harness's results file, not its text) and the trials run."""
        results = log.with_suffix(".results.json")
        results.unlink(missing_ok=True)
        session = WORK / self.language / "session"
        outcome = run(self.argv(), log, timeout, cwd=self.tree, env=judge_env(self.language, results), session=session)
        trials = []
        if results.exists():
            trials = [t for t in json.loads(results.read_text())["trials"] if t["language"] == self.language]
        failed = [t["case"] for t in trials if t["verdict"] == "fail"]
        if outcome == "timeout":
            return outcome, "timeout", trials
        if outcome == "pass" and (failed or not trials):
            sys.exit(f"mutants: {log.relative_to(ROOT)}: make passed, but {results} says otherwise")
        return outcome, (failed[0] if failed else "the build or the run") if outcome == "fail" else "", trials


def table_skips(trials: list[dict]) -> list[str]:
    """The trials of every kind but `case` (the generated scenarios, the
    protocol's refusals, the demo, ...), by the kinds the harness wrote;
    libtest's `--skip` matches a part of a name, so no case may start with
    one of them."""
    skip = sorted({t["case"] for t in trials if t["kind"] != "case"})
    clash = [t["case"] for t in trials if t["kind"] == "case" and any(t["case"].startswith(k) for k in skip)]
    if clash:
        sys.exit(f"mutants: --skip would drop the cases {clash} too: they start with a trial's name")
    return skip


# ---------------------------------------------------------------- the copy of the tree


def copy_tree(language: str) -> Path:
    """target/mutants/<language>/tree: the tracked files as they are now
    (uncommitted edits included), with their times, so cargo finds its
    build fresh. Mutants are written there only; the working tree is
    never touched, whatever stops the run."""
    tree = WORK / language / "tree"
    left = WORK / language / "session"
    if left.exists():  # a judge of a run killed with SIGKILL
        end_session(int(left.read_text()), inside=WORK / language)
        left.unlink()
    shutil.rmtree(tree, ignore_errors=True)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in files.decode().split("\0"):
        source = ROOT / name
        if name and source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    return tree


# ---------------------------------------------------------------- comments


C_LIKE = r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`[^`]*`"""
COMMENTS = {
    ".go": re.compile(C_LIKE, re.DOTALL),
    ".ts": re.compile(C_LIKE, re.DOTALL),
    ".php": re.compile(C_LIKE + r"|#(?!\[)[^\n]*", re.DOTALL),
}


def code_of(file: str, text: str) -> str:
    """The text without its comments and docstrings, to drop the mutants
    that change only those before judging (for Python, the syntax tree
    without docstrings and `pass`, which universalmutator puts in place of
    a comment line)."""
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
                    # A comment line made `pass`, or a docstring, is a no-op
                    # beside other statements and the same as `pass` alone.
                    code = [s for s in body if not (is_docstring(s) or isinstance(s, ast.Pass))]
                    body[:] = code or [ast.Pass()]
        return ast.dump(tree)
    pattern = COMMENTS.get(suffix)
    if pattern is None:
        return text
    return squash(pattern.sub(lambda m: m.group() if m.group()[0] in "\"'`" else " ", text))


def is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


# ---------------------------------------------------------------- the ports


class Port:
    """A port's mutants, made from the working tree's files and judged in a
    copy of the tree (target/mutants/<language>/tree)."""

    def __init__(self, trials: Trials, language: str, sample: int | None, only: str | None = None) -> None:
        self.trials = trials
        self.language = language
        self.only = only
        self.config = language_settings(language)
        self.files = [f"{self.config['root']}/{f}" for f in self.config["files"]]
        self.work = WORK / language
        self.sample = sample
        self.originals = {f: (ROOT / f).read_text() for f in self.files}
        self.not_viable = 0
        self.commented = 0
        self.tree = copy_tree(language)
        self.root = self.tree / self.config["root"]

    # Putting a mutant in place, in the copy ----------------------------

    def recover(self) -> None:
        """Nothing to do: a killed run leaves its mutant only in the copy,
        which the next run makes afresh."""

    def put(self, mutant: Mutant) -> None:
        (self.tree / mutant.file).write_text(mutant.text)
        self.forget_builds()

    def restore(self, file: str) -> None:
        (self.tree / file).write_text(self.originals[file])
        self.forget_builds()

    def forget_builds(self) -> None:
        # python3 -S -E ignores PYTHONDONTWRITEBYTECODE, and a .pyc is
        # trusted when size and mtime (in seconds) match: drop them all.
        for cache in self.root.rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)

    # Making mutants ----------------------------------------------------

    def generate(self) -> list[Mutant]:
        tool = self.config["tool"]
        made = self.universalmutator() if tool == "universalmutator" else self.stryker()
        unique: dict[str, Mutant] = {}
        code = {f: code_of(f, text) for f, text in self.originals.items()}
        for m in made:
            if m.text == self.originals[m.file]:
                continue
            if code_of(m.file, m.text) == code[m.file]:
                self.commented += 1  # a comment or a docstring: not judged, not listed
                continue
            unique.setdefault(m.file + "\0" + m.text, m)
        return list(unique.values())

    def universalmutator(self) -> list[Mutant]:
        mutate = os.environ.get("UNIVERSALMUTATOR") or sys.exit("UNIVERSALMUTATOR is not set: run make mutants")
        mutants = []
        for file in self.files:
            out = self.work / "made" / Path(file).stem
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            source = out / Path(file).name
            source.write_text(self.originals[file])
            argv = [str(ROOT / mutate), source.name, self.config["rules"], "--mutantDir", "."]
            argv += self.config.get("mutate_args", [])
            log = self.work / "logs" / f"mutate-{Path(file).name}.log"
            if run(argv, log, 600, cwd=out) != "pass":
                sys.exit(f"universalmutator failed on {file}: see {log.relative_to(ROOT)}")
            for made in sorted(
                out.glob(f"{Path(file).stem}.mutant.*{Path(file).suffix}"), key=lambda p: int(p.name.split(".")[-2])
            ):
                mutants.append(self.mutant(file, made.read_text()))
        return mutants

    def stryker(self) -> list[Mutant]:
        stryker = os.environ.get("STRYKER") or sys.exit("STRYKER is not set: run make mutants")
        # Stryker runs in a copy, with a test command that always passes: it
        # makes the mutants and type-checks them; the judging is ours.
        copy = self.work / "stryker"
        settings = json.loads((HERE / "typescript.stryker.json").read_text())
        settings["mutate"] = [f"src/{Path(f).name}" for f in self.files]
        inputs = [
            stryker,
            json.dumps(settings),
            (self.root / "tsconfig.json").read_text(),
            (self.root / "package-lock.json").read_text(),
        ]
        inputs += [f"{p.relative_to(self.root)}\0{p.read_text()}" for p in sorted((self.root / "src").rglob("*.ts"))]
        digest = hashlib.sha256("\0".join(inputs).encode()).hexdigest()
        report_path = copy / "reports/mutation/mutation.json"
        stamp = copy / "inputs.sha256"
        # The mutants depend only on the sources, the settings and the tools:
        # Stryker (a few minutes) runs again only when one of them changed.
        if not (stamp.exists() and stamp.read_text() == digest and report_path.exists()):
            shutil.rmtree(copy, ignore_errors=True)
            copy.mkdir(parents=True)
            for name in ("src", "tsconfig.json", "package.json"):
                src = self.root / name
                (shutil.copytree if src.is_dir() else shutil.copy)(src, copy / name)
            (copy / "node_modules").symlink_to(self.root / "node_modules")
            (copy / "stryker.config.json").write_text(json.dumps(settings, indent=2))
            log = self.work / "logs" / "stryker.log"
            if run([str(ROOT / stryker), "run", "stryker.config.json"], log, 1800, cwd=copy) != "pass":
                sys.exit(f"Stryker failed: see {log.relative_to(ROOT)}")
            stamp.write_text(digest)
        report = json.loads(report_path.read_text())
        mutants = []
        for name, entry in report["files"].items():
            file = f"{self.config['root']}/{name}"
            source = self.originals[file]
            lines = source.splitlines(keepends=True)
            starts = [0]
            for line in lines:
                starts.append(starts[-1] + len(line))
            for m in entry["mutants"]:
                if m["status"] in ("CompileError", "Ignored"):
                    self.not_viable += m["status"] == "CompileError"
                    continue
                start, end = m["location"]["start"], m["location"]["end"]
                a = starts[start["line"] - 1] + start["column"] - 1
                b = starts[end["line"] - 1] + end["column"] - 1
                mutants.append(self.mutant(file, source[:a] + m["replacement"] + source[b:]))
        return mutants

    def mutant(self, file: str, text: str) -> Mutant:
        old = self.originals[file].splitlines()
        new = text.splitlines()
        matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
        changed = [op for op in matcher.get_opcodes() if op[0] != "equal"]
        if not changed:
            return Mutant(file, 0, "", "", text)
        i1, i2 = changed[0][1], changed[-1][2]
        j1, j2 = changed[0][3], changed[-1][4]
        if i1 == i2:  # a pure insertion: name the line it follows
            before = old[i1 - 1] if i1 > 0 else ""
            return Mutant(file, i1, before, " ".join([before] + new[j1:j2]), text)
        return Mutant(file, i1 + 1, old[i1], " ".join(new[j1:j2]), text)

    def viable(self, mutants: list[Mutant]) -> list[Mutant]:
        check = self.config.get("check")
        if not check:
            return mutants
        # A copy of the port with the mutant in place, so that the work tree
        # is untouched while most mutants turn out not to compile.
        copy = self.work / "check"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(self.root, copy, ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
        # Verdicts are kept by content: a rerun checks only new mutants.
        known_path = self.work / "viable.json"
        known = json.loads(known_path.read_text()) if known_path.exists() else {}
        keep = []
        for n, m in enumerate(mutants, 1):
            if n % 100 == 0:
                print(f"{self.language}: compile check {n}/{len(mutants)}", flush=True)
            digest = hashlib.sha256(f"{check}\0{m.file}\0{m.text}".encode()).hexdigest()
            if digest not in known:
                inside = copy / Path(m.file).relative_to(self.config["root"])
                inside.write_text(m.text)
                argv = [a.replace("{file}", str(inside)) for a in check]
                known[digest] = run(argv, self.work / "logs" / "check.log", 120, cwd=copy) == "pass"
                inside.write_text(self.originals[m.file])
                known_path.write_text(json.dumps(known))
            ok = known[digest]
            if ok:
                keep.append(m)
            else:
                self.not_viable += 1
        return keep

    # Judging -----------------------------------------------------------

    def judge(self, mutant: Mutant, index: int, timeouts: dict[bool, float]) -> None:
        self.put(mutant)
        try:
            for table_only in (True, False):
                log = self.work / "logs" / f"mutant-{index}-{'table' if table_only else 'all'}.log"
                result, by, _ = self.judges[table_only](log, timeouts[table_only])
                if result == "pass":
                    continue
                mutant.outcome = ("timeout " if result == "timeout" else "") + (
                    "killed by the table" if table_only else "killed by all"
                )
                mutant.by = by
                return
            mutant.outcome = "survived"
        finally:
            self.restore(mutant.file)

    def baseline(self) -> dict[bool, float]:
        """Both judges must pass unmutated; their times set the timeouts.
        The whole set runs first: its results say which trials are not
        cases, and the table's judge skips those."""
        timeouts = {}
        self.judges = {False: Judge(self.trials, self.language, self.tree, [])}
        for table_only in (False, True):
            log = self.work / "logs" / f"baseline-{'table' if table_only else 'all'}.log"
            started = time.monotonic()
            result, by, trials = self.judges[table_only](log, 900)
            if result != "pass":
                sys.exit(
                    f"{self.language}: the unmutated port fails its parity trials ({by}): see {log.relative_to(ROOT)}"
                )
            timeouts[table_only] = 60 + 10 * (time.monotonic() - started)
            if not table_only:
                self.judges[True] = Judge(self.trials, self.language, self.tree, table_skips(trials))
        return timeouts

    def run(self) -> dict:
        started = time.monotonic()
        self.recover()
        self.work.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(self.work / "logs", ignore_errors=True)
        timeouts = self.baseline()
        made = self.generate()
        mutants = self.viable(made)
        tested = mutants
        if self.only:
            tested = [m for m in mutants if self.only in m.show().replace("\n  => ", " => ")]
        if self.sample and self.sample < len(mutants):
            step = len(mutants) / self.sample
            tested = [mutants[int(i * step)] for i in range(self.sample)]
        equivalents = read_equivalents(HERE / f"{self.language}.equivalents")
        print(
            f"{self.language}: {len(tested)} mutants to judge"
            f"{f' (of {len(mutants)})' if tested is not mutants else ''},"
            f" {self.not_viable} not viable, {self.commented} of comments or docstrings only",
            flush=True,
        )
        for i, m in enumerate(tested, 1):
            self.judge(m, i, timeouts)
            listed = next((e for e in equivalents if e.covers(m)), None)
            if listed:
                listed.used = True
            mark = "listed" if listed and m.outcome == "survived" else m.outcome
            print(
                f"  [{i}/{len(tested)}] {mark}{f' ({m.by})' if m.by else ''}: "
                f"{m.file}:{m.line}: {squash(m.after)[:90]}",
                flush=True,
            )
        return self.score(tested, len(mutants), equivalents, time.monotonic() - started) | {"comments": self.commented}

    def tool_version(self) -> str:
        """The mutation tool's version, from the path make installed it at."""
        tool = self.config["tool"]
        version = re.search(
            rf"{tool}-([\w.]+)", os.environ.get("STRYKER" if tool == "stryker" else "UNIVERSALMUTATOR", "")
        )
        return version.group(1) if version else "?"

    def score(self, tested: list[Mutant], viable: int, equivalents: list[Equivalent], seconds: float) -> dict:
        return score(
            self.language,
            self.config["tool"],
            self.tool_version(),
            tested,
            viable,
            self.not_viable,
            equivalents,
            seconds,
            sample=bool(self.sample or self.only),
        )


def score(
    language: str,
    tool: str,
    version: str,
    tested: list[Mutant],
    viable: int,
    not_viable: int,
    equivalents: list[Equivalent],
    seconds: float,
    sample: bool,
) -> dict:
    by_table = [m for m in tested if m.outcome.endswith("by the table")]
    by_all = [m for m in tested if m.outcome != "survived"]
    problems = []
    listed = 0
    for m in tested:
        if m.outcome.endswith("by the table"):
            # An exact entry for a mutant the table kills is wrong; `=> *`
            # speaks only for the mutants of its line that survive.
            for e in equivalents:
                if e.after != "*" and e.covers(m):
                    problems.append(f"{e.where}: listed as equivalent, but the table kills it ({m.by}):\n{m.show()}")
            continue
        entry = next((e for e in equivalents if e.covers(m)), None)
        if entry:
            entry.used = True
            listed += m.outcome == "survived"  # the others count as killed by all
        elif m.outcome == "survived":
            problems.append(f"survived, not listed as equivalent:\n{m.show()}")
        else:  # killed by the generated scenarios or the demo only
            problems.append(f"the table misses it (killed only by {m.by}):\n{m.show()}")
    if not sample:
        for e in equivalents:
            if not e.used:
                problems.append(
                    f"{e.where}: listed as equivalent, but no mutant the table misses matches it:\n"
                    f"{e.file}: {e.before}\n  => {e.after}"
                )
    return {
        "language": language,
        "tool": tool,
        "version": version,
        "mutants": len(tested),
        "viable": viable,
        "not_viable": not_viable,
        "killed_by_table": len(by_table),
        "killed_by_all": len(by_all),
        "equivalent": listed,
        "timeouts": sum(m.outcome.startswith("timeout") for m in tested),
        "seconds": round(seconds),
        "sample": sample,
        "problems": problems,
        "mutants_judged": [dataclass_dict(m) for m in tested],
    }


def rescore(language: str) -> dict:
    """The last run's outcomes against the list as it is now (no mutant is
    run): for writing the list, not for quoting a score."""
    last = json.loads((WORK / f"{language}.json").read_text())
    tested = [
        Mutant(m["file"], m["line"], m["before"], m["after"], "", m["outcome"], m["by"]) for m in last["mutants_judged"]
    ]
    equivalents = read_equivalents(HERE / f"{language}.equivalents")
    return score(
        language,
        last["tool"],
        last["version"],
        tested,
        last["viable"],
        last["not_viable"],
        equivalents,
        last["seconds"],
        last["sample"],
    )


def dataclass_dict(m: Mutant) -> dict:
    return {
        "file": m.file,
        "line": m.line,
        "before": m.before,
        "after": squash(m.after),
        "outcome": m.outcome,
        "by": m.by,
    }


# ---------------------------------------------------------------- Java


@dataclass
class ClassMutant(Mutant):
    """A PIT mutant: the bytecode of one class, put in place of the harness's
    build of that class. `after` is PIT's description of the change."""

    class_file: str = ""  # relative to the classes folder
    bytecode: bytes = b""


class JavaPort(Port):
    """PIT mutates bytecode, not source: it runs once over its own build (in
    target/mutants/java/build), exports every mutant's class file, and each
    is judged with that class file put over the harness's build in
    <target>/parity/java/classes. The build step stays fresh (its stamp
    watches the sources, the POM and named outputs, not the parts' classes),
    so the trials run the mutant; the original class file is put back after."""

    def __init__(self, trials: Trials, language: str, sample: int | None, only: str | None = None) -> None:
        super().__init__(trials, language, sample, only)
        self.classes = cargo_target(language) / "parity" / "java" / "classes"
        self.pending = self.work / "pending"
        self.build = self.work / "build"
        self.current: ClassMutant | None = None

    def recover(self) -> None:
        if not self.pending.exists():
            return
        state = json.loads(self.pending.read_text())
        (self.classes / state["class_file"]).write_bytes(base64.b64decode(state["original"]))
        print(f"restored {state['class_file']} from a run that was killed", file=sys.stderr)
        self.pending.unlink()

    def put(self, mutant: Mutant) -> None:
        assert isinstance(mutant, ClassMutant)
        path = self.classes / mutant.class_file
        self.pending.parent.mkdir(parents=True, exist_ok=True)
        self.pending.write_text(
            json.dumps({"class_file": mutant.class_file, "original": base64.b64encode(path.read_bytes()).decode()})
        )
        self.current = mutant
        self.original_class = path.read_bytes()
        path.write_bytes(mutant.bytecode)

    def restore(self, file: str) -> None:
        if self.current is not None:
            (self.classes / self.current.class_file).write_bytes(self.original_class)
            self.current = None
        self.pending.unlink(missing_ok=True)

    def generate(self) -> list[Mutant]:
        if not (self.classes / "outbox").is_dir():
            sys.exit(f"java: no build in {self.classes}: the baseline should have made it")
        shutil.rmtree(self.build / "pit-reports", ignore_errors=True)
        argv = ["mvn", "--batch-mode", "--quiet", "-f", str(self.root / "pom.xml"), f"-Dparity.out={self.build}"]
        argv += ["process-test-classes", "org.pitest:pitest-maven:mutationCoverage"]
        log = self.work / "logs" / "pitest.log"
        if run(argv, log, 1800, cwd=self.tree) != "pass":
            sys.exit(f"PIT failed: see {log.relative_to(ROOT)}")
        mutants: list[Mutant] = []
        detail = re.compile(r"clazz=([\w.$]+),.*filename=([^,]+),.*lineNumber=(\d+), description=(.*), testsInOrder=")
        export = self.build / "pit-reports" / "export"
        for details in sorted(export.rglob("details.txt"), key=lambda p: (str(p.parents[2]), int(p.parent.name))):
            found = detail.search(details.read_text())
            classes = list(details.parent.glob("*.class"))
            if not found or len(classes) != 1:
                sys.exit(f"PIT's export is not as expected: {details.relative_to(ROOT)}")
            clazz, filename, line, description = found.groups()
            package = clazz.rpartition(".")[0].replace(".", "/")
            file = f"{self.config['root']}/src/main/java/{package}/{filename}"
            if file not in self.originals:
                continue
            source = self.originals[file].splitlines()
            number = int(line)
            before = source[number - 1] if 0 < number <= len(source) else ""
            class_file = classes[0].name.removesuffix(".class").replace(".", "/") + ".class"
            mutants.append(
                ClassMutant(
                    file, number, before, description, "", class_file=class_file, bytecode=classes[0].read_bytes()
                )
            )
        return mutants

    def tool_version(self) -> str:
        """PIT comes through Maven: its version is the one pom.xml pins."""
        pom = (self.root / "pom.xml").read_text()
        version = re.search(r"<artifactId>pitest-maven</artifactId>\s*<version>([\w.]+)</version>", pom)
        return version.group(1) if version else "?"


# ---------------------------------------------------------------- Rust


def rust_table_skips(trials: Trials) -> list[str]:
    """The kinds of trial the table's judge skips, by the results of the
    whole parity set run once unmutated in a copy of the tree."""
    log = WORK / "rust" / "logs" / "baseline-all.log"
    result, by, ran = Judge(trials, "rust", copy_tree("rust"), [])(log, 900)
    if result != "pass":
        sys.exit(f"rust: the reference fails its parity trials ({by}): see {log.relative_to(ROOT)}")
    return table_skips(ran)


def rust(trials: Trials, sample: int | None) -> dict:
    """cargo-mutants over the reference, judged by the Rust runner's trials:
    the table alone, then the whole parity set for the mutants the table
    missed. `.cargo/mutants.toml` excludes the mutants no judge can kill;
    `rust.equivalents` lists those the table cannot (its lines are
    cargo-mutants' names split at the first " with ")."""
    cargo_mutants = os.environ.get("CARGO_MUTANTS") or sys.exit("CARGO_MUTANTS is not set: run make mutants")
    started = time.monotonic()
    where = f"{trials.prefix}/rust"
    table_only = [a for kind in rust_table_skips(trials) for a in ("--skip", f"{where}/{kind}")]
    # cargo-mutants builds in scratch copies of its own, with its own target.
    env = {k: v for k, v in judge_env("rust", WORK).items() if k not in ("CARGO_TARGET_DIR", "PARITY_RESULTS")}
    common = [
        str(ROOT / cargo_mutants),
        "mutants",
        "--package",
        "outbox",
        "--test-package=parity",
        "--baseline=skip",
        "--timeout",
        "240",
        "--build-timeout",
        "600",
        "--no-shuffle",
    ]
    if sample:
        common += ["--shard", f"0/{max(1, 26 // sample)}"]

    def cargo_mutants_run(name: str, extra: list[str], only: list[str]) -> dict[str, list[str]]:
        out = WORK / f"rust-{name}"
        shutil.rmtree(out, ignore_errors=True)
        argv = common + [a for m in only for a in ("-F", "^" + re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", m) + "$")]
        argv += ["--output", str(out), "--", "--test", "parity", "--", f"{where}/"] + extra
        print(f"rust: cargo-mutants, judged by {'the table' if extra else 'the whole parity set'}", flush=True)
        log = WORK / "rust" / f"cargo-mutants-{name}.log"
        if run(argv, log, 7200, env=env) == "timeout":
            sys.exit(f"rust: cargo-mutants took over two hours: see {log.relative_to(ROOT)}")
        print(log.read_text(errors="replace"), end="", flush=True)
        lists = {}
        for kind in ("caught", "missed", "timeout", "unviable"):
            path = out / "mutants.out" / f"{kind}.txt"
            lists[kind] = path.read_text().splitlines() if path.exists() else []
        return lists

    table = cargo_mutants_run("table", table_only, [])
    every = cargo_mutants_run("all", [], table["missed"]) if table["missed"] else {"caught": [], "timeout": []}
    judged = []
    for name in table["caught"] + table["timeout"] + table["missed"]:
        where, _, change = name.partition(": ")
        file, line = where.split(":")[:2]
        before, _, after = change.partition(" with ")
        mutant = Mutant(file, int(line), before, after or "(deleted)", "")
        if name not in table["missed"]:
            mutant.outcome, mutant.by = "killed by the table", "the table"
        elif name in every["caught"] + every["timeout"]:
            mutant.outcome, mutant.by = "killed by all", "the generated scenarios or the demo"
        else:
            mutant.outcome = "survived"
        judged.append(mutant)
    # The mutants .cargo/mutants.toml excludes count as equivalent.
    listed = [
        subprocess.run(common[:4] + flag + ["--list"], check=False, cwd=ROOT, capture_output=True, text=True).stdout
        for flag in ([], ["--no-config"])
    ]
    excluded = len(listed[1].splitlines()) - len(listed[0].splitlines())
    version = re.search(r"cargo-mutants-([\w.]+)", cargo_mutants)
    result = score(
        "rust",
        "cargo-mutants",
        version.group(1) if version else "?",
        judged,
        len(judged),
        len(table["unviable"]),
        read_equivalents(HERE / "rust.equivalents"),
        time.monotonic() - started,
        sample=bool(sample),
    )
    for key in ("mutants", "viable", "equivalent"):
        result[key] += excluded
    return result


# ---------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    trials = ask_harness()
    parser.add_argument("languages", nargs="*", default=trials.languages, choices=trials.languages)
    parser.add_argument("--sample", type=int, help="judge only N mutants, spread evenly over the list")
    parser.add_argument(
        "--rescore", action="store_true", help="apply the equivalents lists to the last run's outcomes, running nothing"
    )
    parser.add_argument("--only", help="judge only the mutants whose `file:line: before => after` holds this text")
    args = parser.parse_args()

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)

    results = []
    for language in args.languages:
        if args.rescore:
            results.append(rescore(language))
            continue
        tool = language_settings(language)["tool"]
        if tool == "cargo-mutants":
            result = rust(trials, args.sample)
        else:
            port = JavaPort if tool == "pitest" else Port
            result = port(trials, language, args.sample, args.only).run()
        results.append(result)
        (WORK / f"{language}.json").write_text(json.dumps(result, indent=2))
    failed = False
    print("\n| language | tool | version | mutants | killed by the table | killed by all | equivalent | run time |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        sample = f" (sample of {r['viable']})" if r["sample"] else ""
        print(
            f"| {r['language']} | {r['tool']} | {r['version']} | {r['mutants']}{sample} "
            f"| {r['killed_by_table']} | {r['killed_by_all']} | {r['equivalent']} "
            f"| {r['seconds'] // 60}m{r['seconds'] % 60:02d}s |"
        )
    for r in results:
        for problem in r["problems"]:
            failed = True
            print(f"\n{r['language']}: {problem}")
    if failed:
        print(
            "\nmutants: FAILED (a mutant that survives the table needs a case, or an entry"
            " with a reason in harness/mutants/<language>.equivalents)"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(
            "mutants: interrupted; the working tree was never written (mutants go to target/mutants/<language>/tree)"
        )
