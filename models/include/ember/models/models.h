#pragma once
// Ember::models: every model family.
#include "ember/models/classifier.h"
#include "ember/models/conv_tasnet.h"
#include "ember/models/densenet.h"
#include "ember/models/efficientnet.h"
#include "ember/models/googlenet.h"
#include "ember/models/inception.h"
#include "ember/models/mobilenet_v2.h"
#include "ember/models/mobilenet_v3.h"
#include "ember/models/resnet.h"
#include "ember/models/shufflenet_v2.h"
#include "ember/models/vgg.h"
#include "ember/models/wav2letter.h"
