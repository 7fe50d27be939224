# tapkit: one non-recursive Makefile.  Everything is built under build/.
#   make            build every command into build/bin/
#   make deps       install the Debian packages the build and tests need
#   make check      build and run every test layer
#   make SAN=1 check  the same with AddressSanitizer and UBSan, built in build-san/
#   make check-vm   run the live tests under Debian's stock kernel in qemu
#   make demo       a short live tour of the suite on this machine
#   make bench      overhead against the peer tools (bench/README.md)
#   make fuzz       run the libFuzzer targets for FUZZ_SECONDS each (clang)
#   make install    PREFIX=/usr/local DESTDIR=

TOOLS := tpoint syscount execsnoop killsnoop tplist uprobe tapkit opensnoop kprobe funclatency funccount tracetop profile offcputime biosnoop biolatency bitesize tcpconnect tcpaccept tcplife tcpretrans runqlat cpudist exitsnoop hardirqs softirqs stackcount cachestat ext4slower fileslower

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

CC ?= cc
# T: the test programs and ELF fixtures the tests run and read (never
# sanitized: they are the traced workload, not tapkit).  O: tapkit itself,
# in build-san/ with SAN=1 so that build/ is left as it is.
T := build
ifeq ($(SAN),1)
O := build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
CFLAGS ?= -O1 -g
else
O := build
SAN_FLAGS :=
endif
PKGS := libtracefs libtraceevent libdw libelf libbpf ncursesw zlib

ifeq ($(V),1)
Q :=
else
Q := @
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
	-Wno-unused-parameter -Wformat=2 -Wno-format-nonliteral
ifneq ($(WERROR),)
WARN += -Werror
endif
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SAN_FLAGS) -I. -I$(O)/gen $(PKG_CFLAGS) -MMD -MP
# --as-needed: a command links only the libraries it uses (libdw is for the
# commands that resolve user-space probes), which keeps start-up short
LDLIBS := -Wl,--as-needed $(PKG_LIBS) -pthread -lm

CORE_SRC := $(wildcard common/*.c tracefs/*.c tool/*.c lang/*.c prov/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(O)/%.o)
LIB := $(O)/libtapkit.a
BINS := $(TOOLS:%=$(O)/bin/%)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRC:tests/helpers/%.c=$(T)/tests/helpers/%)

.DELETE_ON_ERROR:
.SUFFIXES:
.PHONY: all deps check check-vm demo install uninstall clean bench bench-deps tapsets

all: $(BINS)

$(O)/gen/syscall_table.h: scripts/gen-syscalls.sh
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)sh $< > $@.tmp && mv $@.tmp $@

$(O)/common/syscalls.o: $(O)/gen/syscall_table.h

$(O)/%.o: %.c | pkgcheck
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(CORE_OBJ)
	@echo "  AR      $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/bin/%: $(O)/cmd/%.o $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(O)/tests/%: $(O)/tests/unit/%.o $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(T)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O2 -g -Wall -o $@ $<
$(HELPER_BINS): tests/helpers/wait_stdin.h
# profile's and offcputime's workloads: their functions' frames must be
# walked (frame pointers) and kept apart (no inlining at -O0)
$(T)/tests/helpers/cpusplit $(T)/tests/helpers/napper: $(T)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O0 -g -fno-omit-frame-pointer -Wall -o $@ $<

# the same workloads linked statically: no shared C library to probe
STATIC_HELPERS := $(T)/tests/helpers/mutopen-static $(T)/tests/helpers/execer-static
$(T)/tests/helpers/%-static: tests/helpers/%.c tests/helpers/wait_stdin.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O2 -g -Wall -static -o $@ $<

# LD_PRELOAD=libhold.so PROGRAM: PROGRAM held before main() until stdin says
$(T)/tests/helpers/libhold.so: tests/helpers/preload/hold.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O2 -g -Wall -fPIC -shared -o $@ $<

# ELF fixtures the resolver tests read (tests/unit/elf/; never run): one
# program unoptimized and optimized as PIE and fixed-address, stripped with a
# .gnu_debuglink, stripped with its debug file found by build ID, with
# truncated DWARF; a shared library at 0 and at a fixed base; USDT probes.
FIX := $(T)/tests/elf
FIX_CFLAGS := -g -fno-omit-frame-pointer -Wl,--build-id
FIXTURES := $(addprefix $(FIX)/,prog-pie prog-nopie prog-stripped prog-buildid \
	prog-trunc-info prog-trunc-line libtk.so libtk-based.so usdt-pie usdt-nopie \
	usdt-moved libtk-ver.so)

$(FIX)/prog-pie: PIC := -fPIE -pie
$(FIX)/prog-nopie: PIC := -fno-pie -no-pie
$(FIX)/prog-pie $(FIX)/prog-nopie: tests/unit/elf/prog.c tests/unit/elf/opt.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(FIX_CFLAGS) $(PIC) -O0 -c -o $@-prog.o tests/unit/elf/prog.c
	$(Q)$(CC) $(FIX_CFLAGS) $(PIC) -O2 -c -o $@-opt.o tests/unit/elf/opt.c
	$(Q)$(CC) $(FIX_CFLAGS) $(PIC) -rdynamic -o $@ $@-prog.o $@-opt.o

$(FIX)/prog-stripped: $(FIX)/prog-pie
	@echo "  STRIP   $@"
	$(Q)objcopy --only-keep-debug $< $@.debug
	$(Q)objcopy --strip-all --add-gnu-debuglink=$@.debug $< $@

$(FIX)/prog-buildid: $(FIX)/prog-pie
	@echo "  STRIP   $@"
	$(Q)id=$$(readelf -n $< | sed -n 's/^ *Build ID: //p'); \
	d=$(FIX)/debugroot/.build-id/$$(echo $$id | cut -c1-2); \
	mkdir -p $$d && objcopy --only-keep-debug $< $$d/$$(echo $$id | cut -c3-).debug
	$(Q)objcopy --strip-all $< $@

$(FIX)/prog-trunc-%: $(FIX)/prog-pie
	@echo "  TRUNC   $@"
	$(Q)objcopy --dump-section .debug_$*=$@.full $< $@.tmp && rm -f $@.tmp
	$(Q)head -c 100 $@.full > $@.short
	$(Q)objcopy --update-section .debug_$*=$@.short $< $@

$(FIX)/libtk.so: BASE :=
$(FIX)/libtk-based.so: BASE := -Wl,-Ttext-segment=0x10000000
$(FIX)/libtk.so $(FIX)/libtk-based.so: tests/unit/elf/lib.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(FIX_CFLAGS) -O1 -fPIC -shared $(BASE) -o $@ $<

# versioned symbols, named with their versions in .symtab as glibc's are
$(FIX)/libtk-ver.so: tests/unit/elf/ver.c tests/unit/elf/ver.map
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(FIX_CFLAGS) -O1 -fPIC -shared -Wl,--version-script=tests/unit/elf/ver.map -o $@ $<

$(FIX)/usdt-pie: PIC := -fPIE -pie
$(FIX)/usdt-nopie: PIC := -fno-pie -no-pie
$(FIX)/usdt-pie $(FIX)/usdt-nopie: tests/unit/elf/usdt.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(FIX_CFLAGS) $(PIC) -O1 -o $@ $<

# as prelink leaves an object: .stapsdt.base moved, the notes not
$(FIX)/usdt-moved: $(FIX)/usdt-pie
	@echo "  MOVE    $@"
	$(Q)objcopy --change-section-address .stapsdt.base+0x10 $< $@ 2>/dev/null

# funccount's workloads beyond the generic helper rule: fncount also as a
# fixed-address executable, and usdtloop, whose USDT probes and semaphores
# come from a dtrace provider file (dtrace -h header, dtrace -G object)
FC_HELPERS := $(T)/tests/helpers/fncount-nopie $(T)/tests/helpers/usdtloop
$(T)/tests/helpers/fncount-nopie: tests/helpers/fncount.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O2 -g -Wall -fno-pie -no-pie -o $@ $<

$(T)/tests/helpers/usdtloop: tests/helpers/usdt/usdtloop.c tests/helpers/usdt/tkfc.d \
		tests/helpers/wait_stdin.h
	@mkdir -p $(@D)/usdt
	@echo "  DTRACE  $@"
	$(Q)dtrace -h -s tests/helpers/usdt/tkfc.d -o $(@D)/usdt/tkfc.h
	$(Q)$(CC) -O2 -g -Wall -I$(@D)/usdt -c -o $(@D)/usdt/usdtloop.o $<
	$(Q)dtrace -G -s tests/helpers/usdt/tkfc.d -o $(@D)/usdt/tkfc.o $(@D)/usdt/usdtloop.o
	$(Q)$(CC) -o $@ $(@D)/usdt/usdtloop.o $(@D)/usdt/tkfc.o

tests-build: $(FC_HELPERS) $(STATIC_HELPERS)

# the process(...) probes' targets (tests/live/tapkit_process.bats):
# ptarget at -O0 (PIE) and -O0 fixed-address beside the generic -O2 build,
# a shared library with a program linked to it, and a USDT program whose
# probe has a semaphore
PT := $(T)/tests/helpers
PT_HELPERS := $(PT)/ptarget-O0 $(PT)/ptarget-nopie $(PT)/libptarget.so \
	$(PT)/ptarget-lib $(PT)/ptarget-usdt
$(PT)/ptarget-O0: tests/helpers/ptarget.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O0 -g -Wall -fPIE -pie -o $@ $<
$(PT)/ptarget-nopie: tests/helpers/ptarget.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O0 -g -Wall -fno-pie -no-pie -o $@ $<
$(PT)/libptarget.so: tests/helpers/ptlib/ptlib.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O0 -g -Wall -fPIC -shared -o $@ $<
$(PT)/ptarget-lib: tests/helpers/ptlib/ptuser.c $(PT)/libptarget.so
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O0 -g -Wall -o $@ $< -L$(@D) -lptarget -Wl,-rpath,'$$ORIGIN'
$(PT)/ptarget-usdt: tests/helpers/usdt/ptusdt.c tests/helpers/usdt/ptk.d \
		tests/helpers/wait_stdin.h
	@mkdir -p $(@D)/usdt
	@echo "  DTRACE  $@"
	$(Q)dtrace -h -s tests/helpers/usdt/ptk.d -o $(@D)/usdt/ptk.h
	$(Q)$(CC) -O2 -g -Wall -I$(@D)/usdt -c -o $(@D)/usdt/ptusdt.o $<
	$(Q)dtrace -G -s tests/helpers/usdt/ptk.d -o $(@D)/usdt/ptk.o $(@D)/usdt/ptusdt.o
	$(Q)$(CC) -o $@ $(@D)/usdt/ptusdt.o $(@D)/usdt/ptk.o

tests-build: $(PT_HELPERS)

# the backtrace workload: -O0 with frame pointers, as a PIE and as a
# fixed-address executable, with a frame in a shared library of its own
STACK_HELPERS := $(T)/tests/helpers/stackprog $(T)/tests/helpers/stackprog-nopie \
	$(T)/tests/helpers/libtkstack.so
STACK_CFLAGS := -O0 -g -Wall -fno-omit-frame-pointer -fno-inline
$(T)/tests/helpers/libtkstack.so: tests/helpers/stacklib/tkstack.c tests/helpers/stacklib/tkstack.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(STACK_CFLAGS) -fPIC -shared -o $@ $<
$(T)/tests/helpers/stackprog: PIC := -fPIE -pie
$(T)/tests/helpers/stackprog-nopie: PIC := -fno-pie -no-pie
$(T)/tests/helpers/stackprog $(T)/tests/helpers/stackprog-nopie: tests/helpers/stackprog.c \
		tests/helpers/stacklib/tkstack.h tests/helpers/wait_stdin.h $(T)/tests/helpers/libtkstack.so
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(STACK_CFLAGS) $(PIC) -o $@ $< -L$(@D) -ltkstack -Wl,-rpath,'$$ORIGIN'

tests-build: $(STACK_HELPERS)

# the DWARF type resolver's fixture (tests/fixtures/dwtype_*.c): two units,
# unoptimized and optimized, PIE and fixed-address; and dwtype_probe, which
# prints the fetch args it resolves for the live test
DWT := $(T)/tests/fixtures
DWT_BINS := $(DWT)/dwtype-O0 $(DWT)/dwtype-O2 $(DWT)/dwtype-O2-nopie
DWT_SRC := tests/fixtures/dwtype_main.c tests/fixtures/dwtype_other.c
$(DWT)/dwtype-O0: DWT_FLAGS := -O0 -fno-omit-frame-pointer -fPIE -pie
$(DWT)/dwtype-O2: DWT_FLAGS := -O2 -fPIE -pie
$(DWT)/dwtype-O2-nopie: DWT_FLAGS := -O2 -fno-pie -no-pie
$(DWT_BINS): $(DWT_SRC) tests/fixtures/dwtype_types.h
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -g -Wall $(DWT_FLAGS) -o $@ $(DWT_SRC)

$(O)/tests/dwtype_probe: $(O)/tests/fixtures/dwtype_probe.o $(LIB)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

tests-build: $(DWT_BINS) $(O)/tests/dwtype_probe

# libFuzzer targets (clang): `make fuzz` runs each for FUZZ_SECONDS on its
# corpus in tests/fuzz/<target>/ and keeps what it finds in build/fuzz/.
# Leaks are not looked for, as in make SAN=1 check: libtraceevent's parser
# leaks on some malformed formats, and the commands exit holding state.
FUZZ_TARGETS := usdt_note usdt_arg ldcache x86_insn btf record lang elf
FUZZ_SRC := common/usdt_note.c common/usdt_arg.c common/fetcharg.c \
	common/log.c common/ldcache.c common/x86_insn.c common/kbtf.c \
	common/kbtf_func.c common/tpath.c common/event.c
FUZZ_LIBS := -lbpf
FUZZ_SECONDS ?= 60
FUZZ_BINS := $(FUZZ_TARGETS:%=$(O)/fuzz/fuzz_%)

$(O)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_SRC)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang -std=gnu11 -D_GNU_SOURCE -DFUZZ_LIBFUZZER -g -O1 -I. \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $< $(FUZZ_SRC) $(FUZZ_LIBS)

# the language front end and the ELF and DWARF readers reach most of the
# core: they are built from every core source, instrumented (the generated
# syscall table first)
CORE_FUZZ := lang elf
$(CORE_FUZZ:%=$(O)/fuzz/fuzz_%): $(O)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h \
		$(CORE_SRC) $(O)/gen/syscall_table.h
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)clang -std=gnu11 -D_GNU_SOURCE -DFUZZ_LIBFUZZER -g -O1 -I. -I$(O)/gen \
		$(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $< $(CORE_SRC) $(LDLIBS)

# `make check` replays the corpus through the same parsers, under
# AddressSanitizer and UBSan (gcc), without libFuzzer; the language's
# and the ELF readers' (tests/unit/test_fuzz_lang.c, test_fuzz_elf.c) are
# unit tests of the core library, under the sanitizers with make SAN=1 check.
$(O)/tests/test_fuzz_replay: tests/unit/test_fuzz_replay.c $(FUZZ_SRC) \
		$(wildcard tests/fuzz/*.[ch])
	@mkdir -p $(@D)
	@echo "  LINK    $@ (asan)"
	$(Q)$(CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -O1 -g -I. \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-o $@ $< $(FUZZ_SRC) $(FUZZ_LIBS)

DEB_FUZZ := clang
fuzz-deps:
	$(call apt_install,$(DEB_FUZZ))

fuzz: fuzz-deps
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(O)/fuzz/corpus-$$t && \
		echo "  RUN     fuzz_$$t ($(FUZZ_SECONDS) s)" && \
		$(O)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-detect_leaks=0 \
			-artifact_prefix=$(O)/fuzz/$$t- \
			$(O)/fuzz/corpus-$$t tests/fuzz/$$t 2>$(O)/fuzz/$$t.log \
			|| { tail -40 $(O)/fuzz/$$t.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^stat::peak_rss' $(O)/fuzz/$$t.log; \
	done
.PHONY: fuzz fuzz-deps

# pkg-config and the packages are checked before anything is compiled
.PHONY: pkgcheck
pkgcheck:
	@command -v pkg-config >/dev/null || { echo "tapkit: pkg-config is missing: run 'make deps'" >&2; exit 1; }
	@pkg-config --exists $(PKGS) || { echo "tapkit: missing development packages ($(PKGS)): run 'make deps'" >&2; exit 1; }

# Install the Debian packages in $(1) that are missing (apt-get, as root).
define apt_install
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "  APT    $$missing"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; } >/dev/null \
			|| { echo "tapkit: apt-get could not install:$$missing" >&2; exit 1; }; \
	fi
endef

# Debian packages: build, tests (bats, setpriv from util-linux), VM suite, peers for bench/
DEB_BUILD := gcc make pkg-config libtracefs-dev libtraceevent-dev libdw-dev libelf-dev libbpf-dev \
	libncurses-dev zlib1g-dev linux-libc-dev
DEB_TEST := bats util-linux procps python3 qemu-system-x86 busybox-static prometheus curl \
	systemtap-sdt-dev tmux jq
deps:
	$(call apt_install,$(DEB_BUILD) $(DEB_TEST))

# the generated tapsets (committed: the language reads them at run time)
tapsets:
	$(Q)scripts/gen-tapset-syscalls.sh scripts/tapset

tests-build: $(UNIT_BINS) $(HELPER_BINS) $(T)/tests/helpers/libhold.so $(FIXTURES)
.PHONY: tests-build

# tests/run tests the binaries of $(O); with SAN=1 it also sets the
# sanitizers' options and fails the run on any report (see tests/run).
check: deps
	$(Q)$(MAKE) --no-print-directory all tests-build
	$(Q)TAPKIT_BUILD=$(O) TAPKIT_SAN=$(SAN) tests/run

check-vm: deps
	$(Q)$(MAKE) --no-print-directory all tests-build
	$(Q)tests/vm/suite --timeout 3000 live

demo: deps
	$(Q)$(MAKE) --no-print-directory all tests-build
	$(Q)scripts/demo.sh

# the peers bench/ compares against (optional: the scripts skip what is missing)
DEB_BENCH := linux-perf bpftrace trace-cmd perf-tools-unstable htop tmux bpfcc-tools
bench-deps:
	$(call apt_install,$(DEB_BENCH))

bench: deps bench-deps
	$(Q)$(MAKE) --no-print-directory all tests-build
	$(Q)bench/syscount.sh
	$(Q)bench/transport.sh
	$(Q)bench/tapkit.sh
	$(Q)bench/funccount.sh
	$(Q)bench/functime.sh
	$(Q)bench/tapkit_profile.sh
	$(Q)bench/tracetop.sh
	$(Q)bench/biolatency.sh

TAPSETDIR ?= $(PREFIX)/share/tapkit/tapset

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(TAPSETDIR)
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(TOOLS:%=man/man8/%.8) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 scripts/tapset/*.stp scripts/tapset/*.stpm $(DESTDIR)$(TAPSETDIR)/

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%) $(TOOLS:%=$(DESTDIR)$(MANDIR)/man8/%.8)
	rm -rf $(DESTDIR)$(TAPSETDIR)

clean:
	rm -rf $(O)/bin $(O)/common $(O)/tracefs $(O)/tool $(O)/lang $(O)/prov $(O)/cmd $(O)/tests $(O)/gen $(O)/fuzz $(LIB)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
