#pragma once
// ember::nn: modules, containers, layers, init, functional.
#include "ember/nn/container.h"
#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/linear.h"
#include "ember/nn/functional/sampling.h"
#include "ember/nn/init.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/padding.h"
#include "ember/nn/modules/sampling.h"
