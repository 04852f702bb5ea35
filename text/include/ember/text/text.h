#pragma once
// Ember::text: torchtext (0.14) on C++ strings and tensors, and SentencePiece.
#include "ember/text/transforms.h"
#include "ember/text/utf8.h"
#include "ember/text/textdata.h"
#include "ember/text/basic_tokenizers.h"
#include "ember/text/vocab.h"
#include "ember/text/sentencepiece.h"
#include "ember/text/bpe.h"
