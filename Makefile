# Wirelens: build, test, demo and bench plumbing.
#
#   make deps    install missing system packages and python jsonschema
#   make build   swift build (debug)
#   make test    scripts/test.sh: deps, swift build --build-tests, every XCTest case (the test bundle), package-check
#   make demo    build, then scripts/demo.sh (reports/demo/)
#   make bench   release build (Swift runtime linked statically), then scripts/bench.py,
#                scripts/bench-startup.py (one GET against curl's, 20 pairs: reports/bench/STARTUP-BENCH.md),
#                scripts/bench-uploads.py, scripts/bench-s3.py (wirelens upload --preset aws-cli vs aws s3 cp to moto
#                over a 40 ms, 50 Mbit/s namespace path; needs root and .venv-s3), scripts/bench-memory.py (reports/bench/) and
#                scripts/bench-capture.py and scripts/bench-tls.py (reports/bench/capture/), scripts/bench-checks.py
#                (reports/bench/CHECKS.md: 2,000 checks every 10 s through serve against blackbox_exporter,
#                CHECKS_DURATION seconds each, default 300); with BASE=REF also
#                scripts/bench-baseline.py: this tree against REF's build, paired (reports/bench/baseline/)
#   make output-diff BASE=REF   this tree's outputs against REF's on a fixed set of runs (scripts/output-diff.py)
#   make link-order  release build, then scripts/link-order.py: scripts/link-order.txt again, the functions common
#                    runs execute (callgrind), which the release link places first
#   make install     release build, stripped, with a man page per command and bash/zsh/fish completions, under
#                    DESTDIR+PREFIX (default /usr/local); make uninstall removes exactly those (the manifest
#                    PREFIX/share/wirelens/install-manifest lists them)
#   make deb         the same files as a Debian package, DEBDIR/wirelens_VERSION_ARCH.deb (default DEBDIR: here)
#   make package-check   make deb into a scratch directory, unpack it into a scratch root and run it
#                    (scripts/package-check.sh; part of make test)
#   make clean   swift package clean (keeps dependency checkouts), drop bench raw files
#
# Knobs: SWIFT_FLAGS (e.g. SWIFT_FLAGS="--scratch-path .build-mine"),
#        BENCH_ARGS (e.g. BENCH_ARGS=--quick), CHECKS_DURATION (seconds of the checks-at-scale row; default 300,
#        60 with --quick),
#        RELEASE_FLAGS (default --static-swift-stdlib: one self-contained binary that starts without
#        resolving the Swift runtime's shared libraries, about 15 ms less per run; --disable-local-rpath: no
#        $ORIGIN search path, which an installed binary must not have; linked by lld with
#        -z pack-relative-relocs: the relative relocations as a RELR table of kilobytes instead of
#        megabytes of RELA entries the loader reads at every start; --no-export-dynamic: only the symbols
#        the shared libraries need in the dynamic symbol table, not every Swift module's; both cut the
#        pages a run touches at start; every function in a section of its own, placed by
#        scripts/link-order.txt: the code common runs execute side by side, a few megabytes instead of pages
#        spread over all of .text: reports/bench/STARTUP.md),
#        PREFIX, DESTDIR, BINDIR, MANDIR, BASH_COMPLETION_DIR, ZSH_COMPLETION_DIR, FISH_COMPLETION_DIR (install),
#        DEBDIR (deb).

SHELL := /bin/bash
.DEFAULT_GOAL := help

SWIFT       ?= swift
SWIFT_FLAGS ?=
BENCH_ARGS  ?=
CHECKS_DURATION ?=
RELEASE_FLAGS ?= --static-swift-stdlib --disable-local-rpath -Xswiftc -use-ld=lld \
                 -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
                 -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
                 -Xlinker --symbol-ordering-file=$(CURDIR)/scripts/link-order.txt -Xlinker --no-warn-symbol-ordering
PYTHON      ?= python3
BASE        ?=
BIN_RELEASE  = $$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/wirelens

PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR  ?= $(PREFIX)/share/zsh/site-functions
FISH_COMPLETION_DIR ?= $(PREFIX)/share/fish/vendor_completions.d
MANIFEST    ?= $(PREFIX)/share/wirelens/install-manifest
DEBDIR      ?= .
# What install and deb put on a machine, made by scripts/stage.sh from the release build.
STAGE       ?= .build/stage
INSTALL_ENV  = STAGE="$(STAGE)" DESTDIR="$(DESTDIR)" BINDIR="$(BINDIR)" MANDIR="$(MANDIR)" \
               BASH_COMPLETION_DIR="$(BASH_COMPLETION_DIR)" ZSH_COMPLETION_DIR="$(ZSH_COMPLETION_DIR)" \
               FISH_COMPLETION_DIR="$(FISH_COMPLETION_DIR)" MANIFEST="$(MANIFEST)"

.PHONY: help deps build test demo bench output-diff link-order clean stage install install-staged uninstall deb package-check

help:
	@echo "Wirelens make targets:"
	@echo "  make deps    install missing packages (the apt list is in scripts/deps.sh; pip: jsonschema)"
	@echo "  make build   deps + swift build (debug: .build/debug/wirelens)"
	@echo "  make test    deps + build + every test (the test bundle) + package-check (scripts/test.sh)"
	@echo "  make demo    deps + build + scripts/demo.sh (reports/demo/; needs root for its network namespaces)"
	@echo "  make bench   deps + release build + scripts/bench*.py (reports/bench/; the capture part needs root)"
	@echo "               BENCH_ARGS=--quick for a short smoke run (writes reports/bench/raw/quick/)"
	@echo "               CHECKS_DURATION=60 shortens the checks-at-scale row (default 300 s per side)"
	@echo "               BASE=REF (e.g. BASE=main~3) also runs this tree against REF's build, paired"
	@echo "  make output-diff BASE=REF   outputs of this tree against REF's on a fixed set of runs"
	@echo "  make link-order  scripts/link-order.txt again from callgrind runs of the release binary"
	@echo "  make install release build + stripped binary, man pages, bash/zsh/fish completions under DESTDIR+PREFIX"
	@echo "               (PREFIX=/usr/local); make uninstall removes exactly those"
	@echo "  make deb     a Debian package DEBDIR/wirelens_VERSION_ARCH.deb (DEBDIR=. by default)"
	@echo "  make package-check   build the package, unpack it into a scratch root and run it (part of make test)"
	@echo "  make clean   swift package clean + remove reports/bench/raw/"
	@echo "Variables: SWIFT_FLAGS='$(SWIFT_FLAGS)' BENCH_ARGS='$(BENCH_ARGS)'"

deps:
	@bash scripts/deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

# scripts/test.sh overlaps the slow steps: the test peers' packages install during the build, the release build
# package-check stages runs beside the tests in the idle scheduling class.
test:
	SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" MAKE="$(MAKE)" bash scripts/test.sh

# The release binary (shared with bench), generate-manual from swift-argument-parser's package, then scripts/stage.sh.
stage:
	$(SWIFT) build -c release --product wirelens $(RELEASE_FLAGS) $(SWIFT_FLAGS)
	$(SWIFT) build -c release --product generate-manual $(RELEASE_FLAGS) $(SWIFT_FLAGS)
	bash scripts/stage.sh "$(BIN_RELEASE)" "$$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/generate-manual" "$(STAGE)"

install: stage
	$(INSTALL_ENV) bash scripts/install.sh install

# install without building or staging again (package-check installs the tree it staged).
install-staged:
	$(INSTALL_ENV) bash scripts/install.sh install

uninstall:
	$(INSTALL_ENV) bash scripts/install.sh uninstall

deb: stage
	bash scripts/deb.sh "$(STAGE)" "$(DEBDIR)"

package-check: stage
	bash scripts/package-check.sh "$(STAGE)"

demo: build
	WIRELENS="$$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)/wirelens" bash scripts/demo.sh

bench: deps
	$(SWIFT) build -c release --product wirelens $(RELEASE_FLAGS) $(SWIFT_FLAGS)
	$(PYTHON) scripts/bench.py --wirelens "$$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/wirelens" $(BENCH_ARGS)
	$(PYTHON) scripts/bench-startup.py --wirelens "$$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/wirelens" $(BENCH_ARGS)
	$(PYTHON) scripts/bench-uploads.py --wirelens "$$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/wirelens" $(BENCH_ARGS)
	$(PYTHON) scripts/bench-s3.py --wirelens "$$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/wirelens" $(BENCH_ARGS)
	$(PYTHON) scripts/bench-memory.py --wirelens "$$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/wirelens" $(BENCH_ARGS)
	$(PYTHON) scripts/bench-capture.py --wirelens "$$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/wirelens" $(BENCH_ARGS)
	$(PYTHON) scripts/bench-tls.py --wirelens "$$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/wirelens" $(BENCH_ARGS)
	$(PYTHON) scripts/bench-checks.py --wirelens "$$($(SWIFT) build -c release $(RELEASE_FLAGS) $(SWIFT_FLAGS) --show-bin-path)/wirelens" $(if $(CHECKS_DURATION),--duration $(CHECKS_DURATION)) $(BENCH_ARGS)
	if [ -n "$(BASE)" ]; then $(PYTHON) scripts/bench-baseline.py --base "$$(bash scripts/build-baseline.sh $(BASE))" --new "$(BIN_RELEASE)" $(BENCH_ARGS); fi

output-diff: deps
	@[ -n "$(BASE)" ] || { echo "make output-diff: name the ref to compare with, e.g. BASE=main~3" >&2; exit 2; }
	$(SWIFT) build -c release --product wirelens $(RELEASE_FLAGS) $(SWIFT_FLAGS)
	$(PYTHON) scripts/output-diff.py --base "$$(bash scripts/build-baseline.sh $(BASE))" --new "$(BIN_RELEASE)"

link-order: deps
	$(SWIFT) build -c release --product wirelens $(RELEASE_FLAGS) $(SWIFT_FLAGS)
	$(PYTHON) scripts/link-order.py --wirelens "$(BIN_RELEASE)"

clean:
	$(SWIFT) package $(SWIFT_FLAGS) clean
	rm -rf reports/bench/raw
