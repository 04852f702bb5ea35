#pragma once
// The dataset formats of Ember::datasets (torchvision.datasets' readers of the
// official on-disk layouts). See docs/datasets.md, "Dataset formats".
#include <ember/datasets/cifar.h>
#include <ember/datasets/coco.h>
#include <ember/datasets/fake_data.h>
#include <ember/datasets/folder.h>
#include <ember/datasets/mnist.h>
#include <ember/datasets/transform.h>
#include <ember/datasets/voc.h>
