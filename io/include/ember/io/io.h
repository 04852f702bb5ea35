#pragma once
// Umbrella header of Ember::io: file and image IO.
#include <ember/io/file.h>
#include <ember/io/image.h>
