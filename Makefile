# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtrs-client: out-of-tree RTRS (RDMA transport) client.
#
#   make [KVER=<version>]     build rtrs-client.ko into build/<version>/
#   make install              install it under updates/ and run depmod, and the status tool
#   make install-tools        only the status tool scripts/rtrs-status (to $(SBINDIR))
#   make lint                 W=1 + sparse builds for both Debian kernels, checkpatch, shellcheck
#   make unit                 host unit tests of the shared protocol code
#   make check                everything: lint, unit, VM suites on both kernels
#   make check-verbose        the same, streaming every VM case log to the terminal
#   make check-mp             the multipath suites against the 6.1 server (ours-mp-c61-s61,
#                             ours-mp-c612-s61)
#   make check-debug          VM suites on a KASAN/lockdep/kmemleak kernel (tests/debug/)
#   make check-hostile        the hostile peer's whole mutation tables, client 6.12 and 6.1
#   make check-outage         the outage cases (hold, server restart, all paths down) on the
#                             6.1 client; make check runs them on 6.12 (~9 min)
#   make check-mutants        each tests/mutants/*.patch (one feature broken) must fail its test:
#                             KILLED/SURVIVED/ERROR per mutant (tests/mutants/run.sh; host ones
#                             0.5-1.5 min, each VM one a suite run). MUTANTS="--host-only" or names
#   make demo                 two VMs: upstream server, our client, rnbd data check
#   make bench                ours vs upstream rtrs vs nvme-rdma in the VM bed (bench/run.sh)
#   make bench-insn           instructions per I/O (bench/insn/): ours, upstream, nvme-rdma,
#                             2 rounds of 10 s cells, always_invalidate=Y (~7 min)
#   make soak                 50 cable pulls under fio verify (mp-failover, MP_CUTS=50)

KVER ?= $(shell uname -r)
# where make install puts scripts/rtrs-status (under INSTALL_MOD_PATH when staging)
SBINDIR ?= /usr/local/sbin
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= $(CURDIR)/build/$(KVER)
SRCS := $(wildcard *.c *.h)
# Everything checkpatch reads: our C sources and headers.
LINT_FILES := $(SRCS) $(wildcard include/*.h tests/unit/*.c tests/unit/*.h tests/kmod/*.c)

.PHONY: all module install install-tools lint unit check check-verbose check-mp check-hostile check-outage check-mutants check-debug demo bench soak setup clean

all: module

module:
	@test -d $(KDIR) || { echo "no kernel headers at $(KDIR): set KVER= to an installed kernel" >&2; \
		echo "installed: $$(ls /lib/modules 2>/dev/null | tr '\n' ' ')" >&2; exit 1; }
	@mkdir -p $(BUILD)
	@ln -sf $(addprefix $(CURDIR)/,$(SRCS)) $(CURDIR)/Kbuild $(BUILD)/
	@ln -sfn $(CURDIR)/include $(BUILD)/include
	$(MAKE) -C $(KDIR) M=$(BUILD) $(if $(W),W=$(W)) $(if $(C),C=$(C)) modules

# INSTALL_MOD_PATH stages the install under another root (depmod -b follows it).
install: module install-tools
	$(MAKE) -C $(KDIR) M=$(BUILD) INSTALL_MOD_DIR=updates \
		$(if $(INSTALL_MOD_PATH),INSTALL_MOD_PATH=$(INSTALL_MOD_PATH)) modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)

# The status tool does not depend on the kernel version (dkms installs modules only).
install-tools:
	install -D -m 0755 scripts/rtrs-status $(INSTALL_MOD_PATH)$(SBINDIR)/rtrs-status

lint:
	scripts/lint.sh $(LINT_FILES)

unit:
	$(MAKE) -C tests/unit run

check:
	tests/check.sh

check-verbose:
	tests/check.sh --debug

# make check runs multipath against the 6.12 server (ours-mp-c612-s612,
# ours-mp-quick-c61-s612); these run it against the 6.1 server, whose rdma_rxe fails under
# cable pulls (tests/README.md, Known issues).
check-mp:
	CHECK_SUITES="ours-mp-c61-s61 ours-mp-c612-s61" tests/check.sh

# the outage cases on the 6.1 client (issue 21); make check runs them on 6.12
check-outage:
	CHECK_SUITES="ours-outage-c61-s612" tests/check.sh

# the whole hostile-peer tables (tests/hostile/, issue 19); make check runs
# ours-hostile-quick-c612-peer
check-hostile:
	CHECK_SUITES="ours-hostile-c612-peer ours-hostile-c61-peer" tests/check.sh

# proof that the tests catch what they guard (issue 20): tests/mutants/README.md
check-mutants:
	tests/mutants/run.sh $(MUTANTS)

check-debug:
	tests/debug/check-debug.sh

demo:
	tests/demo.sh

bench:
	bench/run.sh

# Two rounds so their per-bucket counts can be compared (bench/insn/README.md)
.PHONY: bench-insn
bench-insn:
	BENCH_INSN=1 BENCH_CONTENDERS="ours upstream nvme" BENCH_AI=Y BENCH_ROUNDS=2 BENCH_RUNTIME=10 \
		BENCH_CELLS="randread-4k-qd1 randread-4k-qd32 randwrite-4k-qd1 read-128k-qd8" bench/run.sh

# SOAK_SUITE=ours-mp-quick-c61-s612 for the 6.1 client; both against the 6.12 server
# (tests/README.md)
soak:
	MP_CUTS=$${MP_CUTS:-50} tests/vm/run-suite.sh $${SOAK_SUITE:-ours-mp-c612-s612} mp-failover

setup:
	scripts/setup.sh

clean:
	rm -rf build tests/unit/build
