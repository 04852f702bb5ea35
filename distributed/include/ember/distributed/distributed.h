#pragma once
// Ember::distributed: torch.distributed's stores and process groups, and
// DistributedDataParallel with Join and the DDP communication hooks.
#include "ember/distributed/store.h"
#include "ember/distributed/hash_store.h"
#include "ember/distributed/prefix_store.h"
#include "ember/distributed/file_store.h"
#include "ember/distributed/tcp_store.h"
#include "ember/distributed/types.h"
#include "ember/distributed/work.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/process_group_gloo.h"
#include "ember/distributed/init.h"
#include "ember/distributed/zero_redundancy_optimizer.h"
#include "ember/distributed/sync_batch_norm.h"
#include "ember/distributed/ddp/distributed_data_parallel.h"
#include "ember/distributed/ddp/bucket_assignment.h"
#include "ember/distributed/ddp/ddp_comm_hooks.h"
#include "ember/distributed/ddp/join.h"
