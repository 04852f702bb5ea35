#pragma once
// torch.ao.quantization's eager-mode workflow on float tensors (docs/quantization.md,
// "Fake quantization and observers" and "The eager-mode workflow").
#include "ember/ao/quantization/fake_quantize.h"
#include "ember/ao/quantization/fake_quantize_ops.h"
#include "ember/ao/quantization/fused_modules.h"
#include "ember/ao/quantization/observer.h"
#include "ember/ao/quantization/qat_modules.h"
#include "ember/ao/quantization/qconfig.h"
#include "ember/ao/quantization/qconfig_dynamic.h"
#include "ember/ao/quantization/qscheme.h"
#include "ember/ao/quantization/quant_markers.h"
#include "ember/ao/quantization/quantize.h"
#include "ember/ao/quantization/quantize_dynamic.h"
