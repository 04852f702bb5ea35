#pragma once
// Umbrella header of Ember::io: file, image and audio IO.
#include <ember/io/file.h>
#include <ember/io/image.h>
#include <ember/io/audio.h>
