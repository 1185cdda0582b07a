# bench fragment: `make bench` measures wall-clock time on this machine.
# Machine-dependent numbers, so nothing here is part of `make test` and
# nothing is asserted: tools/bench.sh prints the figures.
.PHONY: bench
bench: $(BUILD)/bin/sgpu-demo
	@bash tools/bench.sh $(BUILD)/bin
