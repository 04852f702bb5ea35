#pragma once
// Umbrella header of Ember::datasets: the dataset interfaces and building
// blocks, samplers, collation, the DataLoader, the progress bar and the
// standard dataset formats.
#include "ember/datasets/collate.h"
#include "ember/datasets/concat_dataset.h"
#include "ember/datasets/data_loader.h"
#include "ember/datasets/dataset.h"
#include "ember/datasets/detection.h"
#include "ember/datasets/distributed_sampler.h"
#include "ember/datasets/formats.h"
#include "ember/datasets/idx.h"
#include "ember/datasets/iterable_dataset.h"
#include "ember/datasets/map_dataset.h"
#include "ember/datasets/progress.h"
#include "ember/datasets/speech.h"
#include "ember/datasets/sampler.h"
#include "ember/datasets/subset.h"
#include "ember/datasets/tensor_dataset.h"
#include "ember/datasets/worker_info.h"
