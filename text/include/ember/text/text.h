#pragma once
// Ember::text: torchtext (0.14) on C++ strings and tensors, and SentencePiece.
#include "ember/text/utf8.h"
#include "ember/text/bpe.h"
