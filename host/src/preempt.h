/* preempt.h — preemption and the resubmission of preempted work (owned by
 * preempt.c; sgpu_preempt is public). */
#ifndef SGPU_PREEMPT_H
#define SGPU_PREEMPT_H

#include "internal.h"

/* flags.resubmission on node n: the node's next preempted submission if
 * the arguments match it (fence id, length, context, buffer address), else
 * SGPU_ERROR_NOT_PREEMPTED with a message naming what differs. */
int sgpu__preempted_match(sgpu_device *dev, uint32_t n, const sgpu_submit_command_args *a,
                          uint32_t owner, const sgpu_preempted **out);

#endif
