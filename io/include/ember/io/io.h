#pragma once
// Umbrella header of Ember::io: file, image, audio and video IO.
#include <ember/io/file.h>
#include <ember/io/image.h>
#include <ember/io/audio.h>
#include <ember/io/video.h>
