#pragma once
// ember::optim: optimizers with parameter groups and state_dicts, and learning-rate
// schedulers, as torch.optim (docs/optim.md).
#include "ember/optim/adadelta.h"
#include "ember/optim/adagrad.h"
#include "ember/optim/adam.h"
#include "ember/optim/adamax.h"
#include "ember/optim/lbfgs.h"
#include "ember/optim/nadam.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/radam.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/sgd.h"
#include "ember/optim/value.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/libtorch_archive.h"
#include "ember/optim/state_io.h"
