# tapkit: one non-recursive Makefile.  Everything is built under build/.
#   make            build every command into build/bin/
#   make deps       install the Debian packages the build and tests need
#   make check      build and run every test layer
#   make check-vm   run the live tests under Debian's stock kernel in qemu
#   make demo       a short live tour of the suite on this machine
#   make bench      overhead against the peer tools (bench/README.md)
#   make install    PREFIX=/usr/local DESTDIR=

TOOLS := tpoint syscount execsnoop killsnoop tapkit

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

CC ?= cc
O := build
PKGS := libtracefs libtraceevent

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
ALL_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -I. -I$(O)/gen $(PKG_CFLAGS) -MMD -MP
LDLIBS := $(PKG_LIBS) -pthread

CORE_SRC := $(wildcard common/*.c tracefs/*.c lang/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(O)/%.o)
LIB := $(O)/libtapkit.a
BINS := $(TOOLS:%=$(O)/bin/%)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRC:tests/helpers/%.c=$(O)/tests/helpers/%)

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

$(O)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) -O2 -g -Wall -o $@ $<

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
DEB_BUILD := gcc make pkg-config libtracefs-dev libtraceevent-dev libdw-dev libelf-dev \
	libncurses-dev linux-libc-dev
DEB_TEST := bats util-linux procps python3 qemu-system-x86 busybox-static
deps:
	$(call apt_install,$(DEB_BUILD) $(DEB_TEST))

# the generated tapsets (committed: the language reads them at run time)
tapsets:
	$(Q)scripts/gen-tapset-syscalls.sh scripts/tapset

tests-build: $(UNIT_BINS) $(HELPER_BINS)
.PHONY: tests-build

check: deps
	$(Q)$(MAKE) --no-print-directory all tests-build
	$(Q)tests/run

check-vm: deps
	$(Q)$(MAKE) --no-print-directory all tests-build
	$(Q)tests/vm/run -- tests/run live

demo: deps
	$(Q)$(MAKE) --no-print-directory all tests-build
	$(Q)scripts/demo.sh

# the peers bench/ compares against (optional: the scripts skip what is missing)
DEB_BENCH := linux-perf bpftrace trace-cmd perf-tools-unstable
bench-deps:
	$(call apt_install,$(DEB_BENCH))

bench: deps bench-deps
	$(Q)$(MAKE) --no-print-directory all tests-build
	$(Q)bench/syscount.sh
	$(Q)bench/transport.sh
	$(Q)bench/tapkit.sh

TAPSETDIR ?= $(PREFIX)/share/tapkit/tapset

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(TAPSETDIR)
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(TOOLS:%=man/man8/%.8) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 scripts/tapset/*.stp $(DESTDIR)$(TAPSETDIR)/

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%) $(TOOLS:%=$(DESTDIR)$(MANDIR)/man8/%.8)
	rm -rf $(DESTDIR)$(TAPSETDIR)

clean:
	rm -rf $(O)/bin $(O)/common $(O)/tracefs $(O)/lang $(O)/cmd $(O)/tests $(O)/gen $(LIB)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
