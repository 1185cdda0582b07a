# sgpud, the device server (docs/sgpud.md): host/sgpud/*.c over the
# library's public API (and the protocol header host/src/remote_proto.h),
# into $(BUILD)/bin/sgpud (installed with the other programs) and, with
# sanitizers, $(BUILD)/asan/bin/sgpud for the tests.
HOST_SGPUD_SRCS := $(sort $(wildcard host/sgpud/*.c))
HOST_SGPUD      := $(BUILD)/bin/sgpud
HOST_ASAN_SGPUD := $(BUILD)/asan/bin/sgpud

$(HOST_SGPUD): $(HOST_SGPUD_SRCS) $(HOST_LIB_A) $(HOST_HDRS) host/src/remote_proto.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/src $(OPT) -o $@ $(HOST_SGPUD_SRCS) $(HOST_LIB_A) $(HOST_LDLIBS)

$(HOST_ASAN_SGPUD): $(HOST_SGPUD_SRCS) $(HOST_ASAN_OBJS) $(SIM_LIB) $(HOST_HDRS) host/src/remote_proto.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ihost/src -O1 -g $(SAN) -o $@ $(HOST_SGPUD_SRCS) $(HOST_ASAN_OBJS) \
	  $(SIM_LIB) $(HOST_LDLIBS)

ALL_TARGETS += $(HOST_SGPUD)
$(BUILD)/tests/host/test_sgpud.sh: $(HOST_SGPUD) $(HOST_ASAN_SGPUD)
