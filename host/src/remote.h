/* remote.h — the sgpud client (owned by remote.c): a device opened with
 * the URI "sgpud[:PATH]" has dev->remote set and no transport; the public
 * calls carried to the server check it and call these, the others refuse
 * with SGPU__NOT_CARRIED (internal.h), which says why.  remote.c uses only error.c below
 * it; each sgpu__remote_* takes the device lock for its round trip and sets
 * the error text the server sent.  Protocol: remote_proto.h, docs/sgpud.md. */
#ifndef SGPU_REMOTE_H
#define SGPU_REMOTE_H

#include "internal.h"

/* 1 when uri names sgpud ("sgpud" or "sgpud:PATH"). */
int sgpu__remote_uri(const char *uri);
/* Connect, say hello, fill dev's nodes/sources/mem_size.  msg: a reason. */
int sgpu__remote_open(sgpu_device *dev, const char *uri, char *msg, size_t msg_size);
void sgpu__remote_close(sgpu_device *dev);

int sgpu__remote_query_info(sgpu_device *dev, sgpu_info *info);
int sgpu__remote_alloc(sgpu_device *dev, uint32_t segment, uint32_t size, uint32_t alignment,
                       uint64_t *address);
int sgpu__remote_free(sgpu_device *dev, uint64_t address);
int sgpu__remote_read(sgpu_device *dev, uint64_t address, void *data, uint32_t size);
int sgpu__remote_write(sgpu_device *dev, uint64_t address, const void *data, uint32_t size, int raw);
int sgpu__remote_create_context(sgpu_device *dev, uint32_t node, uint32_t window_base,
                                uint32_t window_size, int windowed, sgpu_context **ctx);
void sgpu__remote_destroy_context(sgpu_context *ctx);
/* A VM context of the server's device, and mappings in it (the server
 * checks the allocation is the program's and runs sgpu_map/sgpu_unmap). */
int sgpu__remote_create_context_vm(sgpu_device *dev, uint32_t node, sgpu_context **ctx);
int sgpu__remote_map(sgpu_context *ctx, uint64_t address, uint64_t size, uint32_t access,
                     uint64_t *gpu_va);
int sgpu__remote_unmap(sgpu_context *ctx, uint64_t gpu_va, uint64_t size);
int sgpu__remote_submit(sgpu_device *dev, const sgpu_submit_command_args *a);
int sgpu__remote_wait_fence(sgpu_device *dev, uint32_t node, uint32_t fence, uint32_t timeout_ms);
int sgpu__remote_wait_idle(sgpu_device *dev, uint32_t timeout_ms);
int sgpu__remote_get_fence(sgpu_device *dev, uint32_t node, sgpu_fence_info *info);
int sgpu__remote_next_event(sgpu_device *dev, sgpu_event *ev, uint32_t timeout_ms);
int sgpu__remote_get_stats(sgpu_device *dev, sgpu_stats *stats);
int sgpu__remote_get_cycles(sgpu_device *dev, uint64_t *cycles);
int sgpu__remote_validate(sgpu_device *dev, const sgpu_validate_submit_command_args *a);
int sgpu__remote_get_areas(sgpu_device *dev, sgpu_area *areas, size_t max);
int sgpu__remote_get_ring_info(sgpu_device *dev, uint32_t node, sgpu_ring_info *info);
int sgpu__remote_reg_read(sgpu_device *dev, uint32_t offset, uint32_t *value);
int sgpu__remote_reg_write(sgpu_device *dev, uint32_t offset, uint32_t value);
int sgpu__remote_list_programs(sgpu_device *dev, sgpu_program_info *programs, size_t max);
int sgpu__remote_get_display_mode(sgpu_device *dev, uint32_t source, sgpu_display_mode *m);
int sgpu__remote_set_display_mode(sgpu_device *dev, uint32_t source, const sgpu_display_mode *m);
int sgpu__remote_capture_frame(sgpu_device *dev, uint32_t source, sgpu_frame *frame);
int sgpu__remote_enable_vsync(sgpu_device *dev, uint32_t source, int enable);
int sgpu__remote_read_identity(sgpu_device *dev, sgpu_identity *id);
int sgpu__remote_get_link_stats(sgpu_device *dev, sgpu_link_stats *stats);
int sgpu__remote_ping(sgpu_device *dev, uint32_t timeout_ms, uint32_t *rtt_us);
int sgpu__remote_run_cycles(sgpu_device *dev, uint64_t cycles);

#endif
