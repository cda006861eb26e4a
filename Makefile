# The parity suite of the Outbox relay practice.
#   make test                      every language: every case, generated scenarios, the protocol's
#                                  refusals, the demo, its bad configs, the port's own unit tests
#   make test T=patterns/enterprise/outbox/practice/go/   one language (or one case)
#   make test REPEAT=5             every selected trial 5 times, varying runner restarts: fails
#                                  naming each trial whose verdict or answer changed
#   make self-test                 the harness's own tests (every test file cargo finds)
#   make report                    make test, and the HTML report page (target/parity/report.html)
#   make report BASE=old.json      ... and what changed since the run whose results file that is
#   make known-failures LANG=go    rewrite runners/go/known-failures.json from the last run
#   make demo                      the Rust demo, then each other language's, compared
#   make fuzz SEED=7 COUNT=100000  generated scenarios through every language (or DURATION=60 seconds; SAVE=1
#                                  appends shrunk failures to cases/regressions.json; NO_FEATURES=1 draws no
#                                  field of the optional features)
#   make bench                     the figures of harness/README.md's performance section
#   make floor                     the time of make test's port processes started directly
#   make lint                      every linter, pinned;  make setup: install the toolchains (Debian, Ubuntu)
#   make languages                 the languages (runners/*/language.toml) as CI's matrix, JSON
#   make new-case NAME=my_case     start a case from a template (FILE=cases/x.json to choose the file)
#   make bless                     compute missing expect values with the reference (BLESS=all: every case)
#   make mutants                   mutation testing of every language against the table (LANG=go: one)
#   make mutants-restore           put back the file a killed make mutants left its mutant in
# T is libtest's filter; ARGS passes more libtest flags (e.g. ARGS='--format json').

CARGO ?= cargo
T ?=
ARGS ?=
SEED ?= 1
COUNT ?=
DURATION ?=
SAVE ?=
REPEAT ?=

.PHONY: test self-test parity report demo fuzz bench floor bless new-case mutants mutants-restore lint lint-workflows setup clean known-failures report-tools languages set-back

# What the language manifests (runners/<language>/language.toml) say, for
# the targets below that act per language: none keeps a list of its own.
LANGUAGES = $(CARGO) run --quiet --package parity --bin languages --

# Every trial: each language's cases, generated scenarios, protocol
# refusals, demo, demo config errors and its own unit tests (Rust's `unit`
# is the reference's and the Rust runner's tests). The ports, not the
# harness: its self-tests are `make self-test`.
test: parity

# The harness's self-tests (and the rest of the workspace's): every test
# cargo finds, so a new tests/*.rs cannot be left out.
self-test: report-tools set-back
	$(CARGO) test --quiet --workspace

# cargo decides by modification time: a source edited and given back an
# older mtime (touch -d, cp -p, rsync -a) is older than what was built from
# it, and cargo keeps the old build, the harness's own copy of the
# reference among them, which the harness cannot rebuild while it runs. A
# write sets a file's change time and mtime to one instant, and nothing
# sets the change time back: every Rust source whose mtime is seconds
# older is touched first, so cargo rebuilds what reads it (12 ms).
RUST_SOURCES := Cargo.toml Cargo.lock .cargo reference cases/model runners/rust harness/Cargo.toml harness/src harness/tests
set-back:
	@find $(RUST_SOURCES) -type f -printf '%C@ %T@ %p\n' 2>/dev/null | \
	  awk '$$1 > $$2 + 1 { sub(/^[^ ]+ [^ ]+ /, ""); print }' | xargs -r -d '\n' touch --

# BASE=path/to/results.json compares the run with an earlier one's results
# (every run writes target/parity/results.json): the page, the end of the
# output and the CI summary say which cells changed.
BASE ?=
parity: set-back
	$(if $(BASE),PARITY_BASE=$(BASE)) $(if $(REPEAT),PARITY_REPEAT=$(REPEAT)) $(CARGO) test --quiet --package parity --test parity -- $(T) $(ARGS)

# The suite (same T, ARGS and environment as make test), and the HTML report
# page of its results: the language-by-case matrix and a picture per case.
REPORT ?= target/parity/report.html
report:
	PARITY_REPORT=$(REPORT) $(MAKE) --no-print-directory parity

# runners/<LANG>/known-failures.json from the last run's results file:
# reasons kept, entries that pass now removed, new failures added with a
# placeholder the suite refuses until it says why (LANG from the command
# line only: the environment's LANG is the locale).
known-failures:
	$(if $(filter command line,$(origin LANG)),,$(error make known-failures LANG=<language>, e.g. LANG=go))
	env -u LANG $(CARGO) run --quiet --package parity --bin known-failures -- $(LANG)

demo:
	$(CARGO) run --quiet --package parity --bin demos

fuzz: set-back
	$(CARGO) run --quiet --release --package parity --bin fuzz -- --seed $(SEED) \
	  $(if $(COUNT),--count $(COUNT)) $(if $(DURATION),--seconds $(DURATION)) $(if $(SAVE),--save) \
	  $(if $(NO_FEATURES),--no-features)

bench: set-back
	$(CARGO) build --quiet --release --package parity --bin fuzz --bin bench --bin floor
	$(CARGO) test --quiet --package parity --test parity --no-run
	@echo "## Differential throughput (make fuzz COUNT=40000)"
	./target/release/fuzz --seed 1 --count 40000 --batch 8000 2>/dev/null
	@echo
	./target/release/bench

# The floor make bench compares make test with: every process make test
# starts for the ports, started directly and all at once (RUNS=7: seven times).
RUNS ?= 1
floor:
	$(CARGO) build --quiet --release --package parity --bin floor
	./target/release/floor --runs $(RUNS)

# Expected values come from the Rust reference; review the diff, then commit.
BLESS ?=
NAME ?=
FILE ?=
bless: set-back
	$(CARGO) run --quiet --package parity --bin bless -- $(if $(filter all,$(BLESS)),--all)

new-case: set-back
	$(CARGO) run --quiet --package parity --bin bless -- --new $(NAME) $(if $(FILE),--file $(FILE))

# Linters pinned by version, installed into target/tools on first use.
TOOLS := target/tools
MUTANTS_VERSION := 27.0.0
MUTANTS := $(TOOLS)/cargo-mutants-$(MUTANTS_VERSION)/bin/cargo-mutants
UNIVERSALMUTATOR_VERSION := 1.14.1
UNIVERSALMUTATOR := $(TOOLS)/universalmutator-$(UNIVERSALMUTATOR_VERSION)/bin/mutate
STRYKER_VERSION := 9.6.1
STRYKER := $(TOOLS)/stryker-$(STRYKER_VERSION)/node_modules/.bin/stryker

$(MUTANTS):
	$(CARGO) install --quiet --locked cargo-mutants --version $(MUTANTS_VERSION) --root $(TOOLS)/cargo-mutants-$(MUTANTS_VERSION)

# A virtualenv: installed with pip --target, universalmutator's old typing
# backport would shadow the standard library's.
$(UNIVERSALMUTATOR):
	python3 -m venv $(TOOLS)/universalmutator-$(UNIVERSALMUTATOR_VERSION)
	$(TOOLS)/universalmutator-$(UNIVERSALMUTATOR_VERSION)/bin/pip install --quiet --disable-pip-version-check \
	  universalmutator==$(UNIVERSALMUTATOR_VERSION)

# Stryker 9 (10 needs Node 22); typescript as the port pins it, for the checker.
$(STRYKER):
	mkdir -p $(TOOLS)/stryker-$(STRYKER_VERSION)
	cd $(TOOLS)/stryker-$(STRYKER_VERSION) && echo '{"private": true}' > package.json && \
	  npm install --no-audit --no-fund --save-exact @stryker-mutator/core@$(STRYKER_VERSION) \
	  @stryker-mutator/typescript-checker@$(STRYKER_VERSION) \
	  typescript@$$(node -p 'require("$(CURDIR)/runners/typescript/package.json").devDependencies.typescript')

# make mutants: every language; make mutants LANG=go: one (LANG from the
# command line only: the environment's LANG is the locale). SAMPLE=N judges
# N mutants per language, spread over the list; ONLY=text those whose
# `file:line: before => after` holds the text. See harness/mutants/README.md.
MUTANTS_LANGS := $(if $(filter command line,$(origin LANG)),$(LANG))
SAMPLE ?=
ONLY ?=
mutants:
	@tools=$$($(LANGUAGES) mutation-tools $(MUTANTS_LANGS)) && { [ -z "$$tools" ] || $(MAKE) --no-print-directory $$tools; }
	env -u LANG CARGO_MUTANTS=$(MUTANTS) UNIVERSALMUTATOR=$(UNIVERSALMUTATOR) STRYKER=$(STRYKER) \
	  nice -n 15 python3 harness/mutants/mutants.py $(filter-out all,$(MUTANTS_LANGS)) $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(ONLY),--only "$(ONLY)")

# While target/mutants/pending.json exists (a make mutants killed with
# SIGKILL left its mutant in place), make test refuses to run: this puts
# the original back, unless a make mutants is still running here.
mutants-restore:
	python3 harness/mutants/mutants.py --restore

# The mutation tools a manifest may name ([mutants] tool), each installed on
# first use; PIT is pinned in runners/java/pom.xml and fetched by Maven.
.PHONY: mutants-tool-cargo-mutants mutants-tool-universalmutator mutants-tool-stryker mutants-tool-pitest
mutants-tool-cargo-mutants: $(MUTANTS)
mutants-tool-universalmutator: $(UNIVERSALMUTATOR)
mutants-tool-stryker: $(STRYKER)
mutants-tool-pitest: ;

# The report page's checkers (html-validate, axe-core), pinned by
# harness/report-tools/package-lock.json, for the browser test. Offline a
# failed install only warns: the test then skips with the reason (a
# failure under PARITY_STRICT=1).
REPORT_TOOLS := $(TOOLS)/report-tools/node_modules/.package-lock.json
$(REPORT_TOOLS): harness/report-tools/package.json harness/report-tools/package-lock.json
	mkdir -p $(TOOLS)/report-tools
	cp harness/report-tools/package.json harness/report-tools/package-lock.json $(TOOLS)/report-tools/
	cd $(TOOLS)/report-tools && npm ci --no-audit --no-fund --silent

report-tools:
	@$(MAKE) --no-print-directory $(REPORT_TOOLS) || echo "report-tools: not installed (offline, or no npm): the browser test skips its html-validate and axe checks"

RUFF_VERSION := 0.17.6
ACTIONLINT_VERSION := v1.7.12
RUFF := $(TOOLS)/ruff-$(RUFF_VERSION)/bin/ruff
ACTIONLINT := $(TOOLS)/actionlint-$(ACTIONLINT_VERSION)/actionlint

$(RUFF):
	python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
	  --target $(TOOLS)/ruff-$(RUFF_VERSION) ruff==$(RUFF_VERSION)

$(ACTIONLINT):
	GOBIN=$(CURDIR)/$(TOOLS)/actionlint-$(ACTIONLINT_VERSION) go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# Each language's lint lines come from its manifest; actionlint checks the
# workflows, which are no language's, and the harness's own Python (the
# mutation runner, the workflows' lint) is held to the Python port's ruff
# rules (but for the port's 100 columns, which are the code panel's); every
# case file must be in the canonical layout the tools write (bless --check).
lint: $(RUFF) $(ACTIONLINT) lint-workflows
	$(ACTIONLINT) .github/workflows/*.yml
	$(RUFF) check --config runners/python/pyproject.toml --line-length 120 harness/mutants .github/lint_workflows.py
	$(RUFF) format --check --config runners/python/pyproject.toml --line-length 120 harness/mutants .github/lint_workflows.py
	CARGO=$(CARGO) RUFF=$(abspath $(RUFF)) $(LANGUAGES) lint
	$(CARGO) run --quiet --package parity --bin bless -- --check

# What actionlint lets pass in a workflow's shell, each once a CI bug that
# passed in silence, however it is written: the workflows parsed (PyYAML,
# pinned) and each step's resolved shell and script checked by
# .github/lint_workflows.py. A step without bash's pipefail (`make fuzz |
# tee` ended with tee's status), an `echo` of a command substitution,
# `$(...)` or backticks (a broken manifest gave an empty matrix, seen only
# later as fromJSON's error), a language's filter without its closing `/`
# once the step's env is put in (`.../java` also runs a `javascript`).
WORKFLOWS := .github/workflows/*.yml
PYYAML_VERSION := 6.0.3
PYYAML := $(TOOLS)/pyyaml-$(PYYAML_VERSION)
$(PYYAML)/yaml/__init__.py:
	python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
	  --target $(PYYAML) pyyaml==$(PYYAML_VERSION)

lint-workflows: $(PYYAML)/yaml/__init__.py
	@PYTHONPATH=$(PYYAML) python3 -S .github/lint_workflows.py $(WORKFLOWS)

# The languages as CI's matrix (one line of JSON, for fromJSON).
languages:
	@$(LANGUAGES) matrix

# Installs the toolchains on Debian or Ubuntu (what .ci/run installs).
setup:
	bash .ci/setup

clean:
	$(CARGO) clean
