// interpolate, pixel_shuffle/unshuffle, channel_shuffle, fold/unfold.
//
// Note [Resampling as taps]
// Every interpolate mode is separable: along each spatial dim, output
// position o is a weighted sum of a few input positions. The op computes
// those taps per dim exactly as PyTorch's kernels pick source indices and
// weights (UpSample.h: area_pixel_compute_scale/source_index, nearest_idx,
// guard_index_and_lambda, cubic coefficients with A = -0.75, adaptive pool
// windows for area); one forward kernel applies them and one backward
// kernel applies their transpose. The forward and the backward are recorded
// ops of each other, so any order of derivative works.
#include "ember/nn/functional/sampling.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <numeric>
#include <sstream>

#include "autograd/record.h"
#include "ember/core/checked_size.h"
#include "ember/ops/factories.h"
#include "kernels/slots/sampling_kernels.h"
#include "kernels/slots/shape_kernels.h"

namespace ember {

EMBER_DEFINE_SLOT(resample_slot, ResampleFn, "resample");
EMBER_DEFINE_SLOT(resample_backward_slot, ResampleBackwardFn, "resample_backward");
EMBER_DEFINE_SLOT(im2col_slot, Im2ColFn, "im2col");
EMBER_DEFINE_SLOT(col2im_slot, Col2ImFn, "col2im");

namespace nn::functional {

namespace {

template <class T>
std::string tuple_str(const std::vector<T>& v) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << (v.size() == 1 ? ",)" : ")");
  return os.str();
}

// ---------------------------------------------------------------------------
// Taps (Note [Resampling as taps])
// ---------------------------------------------------------------------------

struct TapBuilder {
  ResampleTaps t;
  TapBuilder(int64_t in, int64_t out) {
    t.in_size = in;
    t.out_size = out;
    t.offsets.reserve(static_cast<size_t>(out) + 1);
    t.offsets.push_back(0);
  }
  void add(int64_t index, double weight) {
    t.index.push_back(index);
    t.weight.push_back(weight);
  }
  void next() { t.offsets.push_back(static_cast<int64_t>(t.index.size())); }
};

// compute_scales_value: 1/scale when given, else in/out.
template <class S>
S scales_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<S>(1.0 / *scale) : static_cast<S>(in) / static_cast<S>(out);
}

// area_pixel_compute_scale.
double pixel_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  return scales_value<double>(scale, in, out);
}

// area_pixel_compute_source_index.
double source_index(double scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<double>(o);
  const double src = scale * (static_cast<double>(o) + 0.5) - 0.5;
  return (!cubic && src < 0) ? 0.0 : src;
}

// nearest_idx / nearest_exact_idx (in float, as PyTorch).
ResampleTaps nearest_taps(int64_t in, int64_t out, std::optional<double> scale, bool exact) {
  TapBuilder b(in, out);
  const float s = scales_value<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i;
    if (exact) {
      i = std::min(static_cast<int64_t>(std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * s))), in - 1);
    } else if (out == in) {
      i = o;
    } else if (out == 2 * in) {
      i = o >> 1;
    } else {
      i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    }
    b.add(i, 1.0);
    b.next();
  }
  return b.t;
}

// compute_source_index_and_lambda.
ResampleTaps linear_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  TapBuilder b(in, out);
  const double ratio = pixel_scale(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    if (out == in) {
      b.add(o, 1.0);
    } else {
      const double real = source_index(ratio, o, align_corners, /*cubic=*/false);
      const int64_t i0 = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
      const double l1 = std::clamp(real - static_cast<double>(i0), 0.0, 1.0);
      const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
      b.add(i0, 1.0 - l1);
      b.add(i1, l1);
    }
    b.next();
  }
  return b.t;
}

// Keys' cubic convolution with A = -0.75 (get_cubic_upsample_coefficients);
// indices clamped to the border.
ResampleTaps cubic_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  constexpr double A = -0.75;
  auto conv1 = [](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto conv2 = [](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  TapBuilder b(in, out);
  const double ratio = pixel_scale(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    const double real = source_index(ratio, o, align_corners, /*cubic=*/true);
    const int64_t i = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
    const double t = std::clamp(real - static_cast<double>(i), 0.0, 1.0);
    const double coeffs[4] = {conv2(t + 1.0), conv1(t), conv1(1.0 - t), conv2(2.0 - t)};
    for (int64_t j = 0; j < 4; ++j) b.add(std::clamp<int64_t>(i - 1 + j, 0, in - 1), coeffs[j]);
    b.next();
  }
  return b.t;
}

// Adaptive average pooling windows: [floor(o*in/out), ceil((o+1)*in/out)).
ResampleTaps area_taps(int64_t in, int64_t out) {
  TapBuilder b(in, out);
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = (o * in) / out;
    const int64_t end = ((o + 1) * in + out - 1) / out;
    const double w = 1.0 / static_cast<double>(end - start);
    for (int64_t i = start; i < end; ++i) b.add(i, w);
    b.next();
  }
  return b.t;
}

// ---------------------------------------------------------------------------
// The recorded resampling op and its adjoint
// ---------------------------------------------------------------------------

struct ResamplePlan {
  std::vector<ResampleTaps> taps;
  bool gather = false;  // one tap of weight 1 per output (nearest): a plain index-map copy
  const char* op = "";
  const char* backward_op = "";
  // The output follows a channels-last input (PyTorch's nearest, linear and
  // 2-d area kernels do); false: contiguous always (its bicubic and 3-d area).
  bool keeps_channels_last = true;
};
using PlanPtr = std::shared_ptr<const ResamplePlan>;

Tensor resample(const Tensor& input, const PlanPtr& plan);

// grad_in = A^T grad (the backward of resample; its own backward is resample).
Tensor resample_adjoint(const Tensor& grad, const PlanPtr& plan, const DimVector& input_sizes,
                        MemoryFormat format) {
  autograd::OpRecorder rec(plan->backward_op, {grad});
  Tensor grad_in = zeros(input_sizes, grad.options().memory_format(format));
  resample_backward_slot(grad.device())(grad, grad_in, plan->taps);
  if (rec)
    rec.record(grad_in, [plan](autograd::BackwardContext& c) {
      return autograd::variable_list{c.needs(0) ? resample(c.grads[0], plan) : Tensor()};
    });
  return grad_in;
}

Tensor resample(const Tensor& input, const PlanPtr& plan) {
  autograd::OpRecorder rec(plan->op, {input});
  DimVector shape{input.size(0), input.size(1)};
  for (const auto& t : plan->taps) shape.push_back(t.out_size);
  const MemoryFormat format = plan->keeps_channels_last ? input.suggest_memory_format() : MemoryFormat::Contiguous;
  Tensor out = empty(shape, input.options().memory_format(format));
  if (out.numel() > 0) {
    if (plan->gather) {
      std::vector<std::vector<int64_t>> maps(2);
      for (int64_t d = 0; d < 2; ++d) {
        maps[d].resize(static_cast<size_t>(input.size(d)));
        std::iota(maps[d].begin(), maps[d].end(), int64_t{0});
      }
      for (const auto& t : plan->taps) maps.push_back(t.index);
      remap_copy_slot(input.device())(input, out, maps);
    } else {
      resample_slot(input.device())(input, out, plan->taps);
    }
  }
  if (rec)
    rec.record(out, [plan, sizes = DimVector(input.sizes()), format](autograd::BackwardContext& c) {
      return autograd::variable_list{resample_adjoint(c.grads[0], plan, sizes, format)};
    });
  return out;
}

// Forward and backward op names per mode and spatial rank (1 to 3).
struct OpNames {
  const char* op[3];
  const char* backward[3];
};
const OpNames& op_names(const std::string& mode) {
  static const OpNames nearest{{"upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d"},
                               {"upsample_nearest1d_backward", "upsample_nearest2d_backward",
                                "upsample_nearest3d_backward"}};
  static const OpNames exact{{"_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d"},
                             {"_upsample_nearest_exact1d_backward", "_upsample_nearest_exact2d_backward",
                              "_upsample_nearest_exact3d_backward"}};
  static const OpNames linear{{"upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d"},
                              {"upsample_linear1d_backward", "upsample_bilinear2d_backward",
                               "upsample_trilinear3d_backward"}};
  static const OpNames cubic{{"upsample_bicubic2d", "upsample_bicubic2d", "upsample_bicubic2d"},
                             {"upsample_bicubic2d_backward", "upsample_bicubic2d_backward",
                              "upsample_bicubic2d_backward"}};
  static const OpNames area{{"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"},
                            {"adaptive_avg_pool1d_backward", "adaptive_avg_pool2d_backward",
                             "adaptive_avg_pool3d_backward"}};
  if (mode == "nearest") return nearest;
  if (mode == "nearest-exact") return exact;
  if (mode == "bicubic") return cubic;
  if (mode == "area") return area;
  return linear;
}

}  // namespace

Tensor interpolate(const Tensor& input, const InterpolateOptions& o) {
  EMBER_CHECK(input.defined(), "interpolate: input is undefined");
  const std::string& mode = o.mode;
  static const char* kModes[] = {"nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"};
  EMBER_CHECK(std::find(std::begin(kModes), std::end(kModes), mode) != std::end(kModes),
              "interpolate: unknown mode '", mode,
              "' (expected nearest | nearest-exact | linear | bilinear | bicubic | trilinear | area)");
  const bool nearest = mode == "nearest" || mode == "nearest-exact";
  const bool interpolating = !nearest && mode != "area";
  EMBER_CHECK(interpolating || !o.align_corners.has_value(),
              "interpolate: align_corners option can only be set with the interpolating modes: "
              "linear | bilinear | bicubic | trilinear (got mode '", mode, "')");
  const bool align_corners = o.align_corners.value_or(false);
  EMBER_CHECK(input.dim() >= 3 && input.dim() <= 5, "interpolate: Only 3D, 4D and 5D input Tensors supported (got ",
              input.dim(), "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
              "nearest-exact (got ", mode, ")");
  const int64_t nd = input.dim() - 2;
  const int64_t needs = mode == "linear" ? 1 : (mode == "bilinear" || mode == "bicubic") ? 2 : mode == "trilinear" ? 3 : nd;
  EMBER_CHECK(nd == needs, "interpolate: Got ", input.dim(), "D input, but ", mode, " mode needs ", needs + 2,
              "D input");
  EMBER_CHECK(nearest || input.is_floating_point(), "interpolate: mode '", mode,
              "' needs a floating point input, got dtype ", input.dtype());

  std::vector<int64_t> in_size(input.sizes().begin() + 2, input.sizes().end());
  const bool has_size = !o.size.empty(), has_scale = !o.scale_factor.empty();
  EMBER_CHECK(!(has_size && has_scale), "interpolate: only one of size or scale_factor should be defined");
  EMBER_CHECK(has_size || has_scale, "interpolate: either size or scale_factor should be defined");
  if (has_size)
    EMBER_CHECK(o.size.size() == 1 || static_cast<int64_t>(o.size.size()) == nd,
                "interpolate: Input and output must have the same number of spatial dimensions, but got input "
                "with spatial dimensions of ", tuple_str(in_size), " and output size of ", tuple_str(o.size),
                ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                "(o1, o2, ...,oK) format.");
  if (has_scale)
    EMBER_CHECK(o.scale_factor.size() == 1 || static_cast<int64_t>(o.scale_factor.size()) == nd,
                "interpolate: Input and scale_factor must have the same number of spatial dimensions, but got "
                "input with spatial dimensions of ", tuple_str(in_size), " and scale_factor of shape ",
                tuple_str(o.scale_factor), ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                "scale_factor in (s1, s2, ...,sK) format.");
  EMBER_CHECK(!(has_size && o.recompute_scale_factor.value_or(false)),
              "interpolate: recompute_scale_factor is not meaningful with an explicit size.");
  // area always samples by size (PyTorch reuses the recompute path for it).
  const bool recompute = o.recompute_scale_factor.value_or(false) || (mode == "area" && !has_size);

  std::vector<int64_t> out_size(static_cast<size_t>(nd));
  std::vector<std::optional<double>> scales(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) {
    if (has_size) {
      out_size[d] = o.size[o.size.size() == 1 ? 0 : d];
    } else {
      const double s = o.scale_factor[o.scale_factor.size() == 1 ? 0 : d];
      EMBER_CHECK(std::isfinite(s), "interpolate: scale_factor must be finite, got ", s);
      const double out = std::floor(static_cast<double>(in_size[d]) * s);
      EMBER_CHECK(out < 0x1p63, "interpolate: input size ", in_size[d], " times scale_factor ", s,
                  " overflows int64");
      out_size[d] = static_cast<int64_t>(std::max(out, -1.0));
      if (!recompute) scales[d] = s;
    }
  }
  bool positive = true;
  for (int64_t d = 0; d < nd; ++d) positive = positive && in_size[d] > 0 && out_size[d] > 0;
  EMBER_CHECK(positive, "interpolate: Input and output sizes should be greater than 0, but got input ",
              tuple_str(in_size), " and output ", tuple_str(out_size));

  // The output's size is checked before the taps (several per output index)
  // are built, and a tap table the memory cannot hold is an error naming the
  // op (Note [Checked sizes]).
  DimVector out_shape(input.sizes().slice(0, static_cast<size_t>(input.dim() - nd)));
  for (int64_t s : out_size) out_shape.push_back(s);
  checked_nbytes(out_shape, input.element_size(), "interpolate");
  auto plan = std::make_shared<ResamplePlan>();
  plan->gather = nearest;
  plan->op = op_names(mode).op[nd - 1];
  plan->backward_op = op_names(mode).backward[nd - 1];
  plan->keeps_channels_last = mode != "bicubic" && !(mode == "area" && nd == 3);
  try {
    for (int64_t d = 0; d < nd; ++d) {
      const int64_t in = in_size[d], out = out_size[d];
      if (nearest)
        plan->taps.push_back(nearest_taps(in, out, scales[d], mode == "nearest-exact"));
      else if (mode == "area")
        plan->taps.push_back(area_taps(in, out));
      else if (mode == "bicubic")
        plan->taps.push_back(cubic_taps(in, out, align_corners, scales[d]));
      else
        plan->taps.push_back(linear_taps(in, out, align_corners, scales[d]));
    }
  } catch (const std::bad_alloc&) {
    EMBER_FAIL("interpolate: not enough memory for the sampling taps of output size ", tuple_str(out_size));
  }
  return resample(input, plan);
}

// ---------------------------------------------------------------------------
// pixel_shuffle, pixel_unshuffle, channel_shuffle: reshapes and a permute
// ---------------------------------------------------------------------------

namespace {
// The layout PyTorch's kernels give a 4-d channels-last input's output.
Tensor keep_layout(const Tensor& out, const Tensor& input) {
  const MemoryFormat f = input.suggest_memory_format();
  return f == MemoryFormat::Contiguous ? out : out.contiguous(f);
}
}  // namespace

Tensor pixel_shuffle(const Tensor& input, int64_t r) {
  EMBER_CHECK(input.defined(), "pixel_shuffle: input is undefined");
  EMBER_CHECK(input.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  // r * r, h * r and w * r checked (Note [Checked sizes]): a huge factor must not wrap (or divide by zero).
  const int64_t r2 = checked_mul(r, r, "pixel_shuffle");
  EMBER_CHECK(c % r2 == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
              "square of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r2);
  checked_mul(h, r, "pixel_shuffle");
  checked_mul(w, r, "pixel_shuffle");
  const int64_t b = input.dim() - 3;
  DimVector split(input.sizes().slice(0, b));
  DimVector out_shape = split;
  for (int64_t s : {c / (r * r), r, r, h, w}) split.push_back(s);
  for (int64_t s : {c / (r * r), h * r, w * r}) out_shape.push_back(s);
  DimVector perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t i : {0, 3, 1, 4, 2}) perm.push_back(b + i);
  return keep_layout(input.reshape(split).permute(perm).reshape(out_shape), input);
}

Tensor pixel_unshuffle(const Tensor& input, int64_t r) {
  EMBER_CHECK(input.defined(), "pixel_unshuffle: input is undefined");
  EMBER_CHECK(input.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=",
              h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=",
              w, " is not divisible by ", r);
  const int64_t b = input.dim() - 3;
  DimVector split(input.sizes().slice(0, b));
  DimVector out_shape = split;
  for (int64_t s : {c, h / r, r, w / r, r}) split.push_back(s);
  // c * r * r overflows only when h or w is 0 (r divides them): checked.
  for (int64_t s : {checked_mul(checked_mul(c, r, "pixel_unshuffle"), r, "pixel_unshuffle"), h / r, w / r})
    out_shape.push_back(s);
  DimVector perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t i : {0, 2, 4, 1, 3}) perm.push_back(b + i);
  return keep_layout(input.reshape(split).permute(perm).reshape(out_shape), input);
}

Tensor channel_shuffle(const Tensor& input, int64_t groups) {
  EMBER_CHECK(input.defined(), "channel_shuffle: input is undefined");
  EMBER_CHECK(input.dim() > 2, "channel_shuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(groups > 0, "channel_shuffle: Number of groups to divide channels in must be positive. Value of groups:",
              groups);
  const int64_t c = input.size(1);
  EMBER_CHECK(c % groups == 0, "channel_shuffle: Number of channels must be divisible by groups. Got ", c,
              " channels and ", groups, " groups.");
  DimVector split{input.size(0), groups, c / groups};
  for (int64_t d = 2; d < input.dim(); ++d) split.push_back(input.size(d));
  return keep_layout(input.reshape(split).transpose(1, 2).reshape(input.sizes()), input);
}

// ---------------------------------------------------------------------------
// unfold (im2col) and fold (col2im): adjoints of each other
// ---------------------------------------------------------------------------

namespace {

struct Pair {
  int64_t h, w;
};
Pair pair_of(const std::vector<int64_t>& v, const char* op, const char* name) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2, op, ": ", name, " must have 1 or 2 values, got ", tuple_str(v));
  return {v[0], v[v.size() - 1]};
}

Tensor col2im_op(const Tensor& columns, const Im2ColGeometry& g, bool batched);

Tensor im2col_op(const Tensor& image, const Im2ColGeometry& g, bool batched) {
  autograd::OpRecorder rec("im2col", {image});
  const int64_t rows = g.channels * g.kernel_h * g.kernel_w, blocks = g.out_h * g.out_w;
  Tensor cols = empty(batched ? DimVector{g.batch, rows, blocks} : DimVector{rows, blocks}, image.options());
  im2col_slot(image.device())(image.contiguous(), cols, g);
  if (rec)
    rec.record(cols, [g, batched](autograd::BackwardContext& c) {
      return autograd::variable_list{col2im_op(c.grads[0], g, batched)};
    });
  return cols;
}

Tensor col2im_op(const Tensor& columns, const Im2ColGeometry& g, bool batched) {
  autograd::OpRecorder rec("col2im", {columns});
  Tensor image = empty(batched ? DimVector{g.batch, g.channels, g.height, g.width}
                               : DimVector{g.channels, g.height, g.width},
                       columns.options());
  col2im_slot(columns.device())(columns.contiguous(), image, g);
  if (rec)
    rec.record(image, [g, batched](autograd::BackwardContext& c) {
      return autograd::variable_list{im2col_op(c.grads[0], g, batched)};
    });
  return image;
}

// Fills the block geometry (kernel, dilation, padding, stride, blocks per dim).
void block_geometry(Im2ColGeometry& g, const char* op, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
                    const std::vector<int64_t>& stride) {
  const Pair k = pair_of(kernel_size, op, "kernel_size"), d = pair_of(dilation, op, "dilation");
  const Pair p = pair_of(padding, op, "padding"), s = pair_of(stride, op, "stride");
  EMBER_CHECK(k.h > 0 && k.w > 0, op, ": kernel size should be greater than zero, but got kernel_height: ", k.h,
              " kernel_width: ", k.w);
  EMBER_CHECK(s.h > 0 && s.w > 0, op, ": stride should be greater than zero, but got stride_height: ", s.h,
              " stride_width: ", s.w);
  EMBER_CHECK(d.h > 0 && d.w > 0, op, ": dilation should be greater than zero, but got dilation_height: ", d.h,
              " dilation_width: ", d.w);
  EMBER_CHECK(p.h >= 0 && p.w >= 0, op, ": padding should be non-negative, but got pad_height: ", p.h,
              " pad_width: ", p.w);
  g.kernel_h = k.h, g.kernel_w = k.w, g.dilation_h = d.h, g.dilation_w = d.w;
  g.pad_h = p.h, g.pad_w = p.w, g.stride_h = s.h, g.stride_w = s.w;
  const int64_t span_h = g.height + 2 * p.h - d.h * (k.h - 1) - 1;
  const int64_t span_w = g.width + 2 * p.w - d.w * (k.w - 1) - 1;
  g.out_h = span_h < 0 ? 0 : span_h / s.h + 1;
  g.out_w = span_w < 0 ? 0 : span_w / s.w + 1;
}

}  // namespace

Tensor unfold(const Tensor& input, const UnfoldOptions& o) {
  EMBER_CHECK(input.defined(), "unfold: input is undefined");
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
              "unfold: Input Error: Only 3D or 4D input Tensors are supported (got ", input.dim(), "D)");
  const bool batched = input.dim() == 4;
  Im2ColGeometry g{};
  g.batch = batched ? input.size(0) : 1;
  g.channels = input.size(-3);
  g.height = input.size(-2);
  g.width = input.size(-1);
  block_geometry(g, "unfold", o.kernel_size, o.dilation, o.padding, o.stride);
  EMBER_CHECK(g.out_h >= 1 && g.out_w >= 1, "unfold: Given input with spatial size (", g.height, ", ", g.width,
              "), kernel_size=(", g.kernel_h, ", ", g.kernel_w, "), dilation=(", g.dilation_h, ", ", g.dilation_w,
              "), padding=(", g.pad_h, ", ", g.pad_w, "), calculated shape of the array of sliding blocks as (",
              (g.height + 2 * g.pad_h - g.dilation_h * (g.kernel_h - 1) - 1) / g.stride_h + 1, ", ",
              (g.width + 2 * g.pad_w - g.dilation_w * (g.kernel_w - 1) - 1) / g.stride_w + 1,
              "), but its components must be at least one.");
  EMBER_CHECK(input.is_floating_point(), "unfold: expected a floating point input, got dtype ", input.dtype());
  return im2col_op(input, g, batched);
}

Tensor fold(const Tensor& input, const FoldOptions& o) {
  EMBER_CHECK(input.defined(), "fold: input is undefined");
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3,
              "fold: Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got ",
              input.dim(), "D)");
  const bool batched = input.dim() == 3;
  const Pair out = pair_of(o.output_size, "fold", "output_size");
  EMBER_CHECK(out.h > 0 && out.w > 0, "fold: output_size should be greater than zero, but got output_height: ",
              out.h, " output_width: ", out.w);
  Im2ColGeometry g{};
  g.batch = batched ? input.size(0) : 1;
  g.height = out.h;
  g.width = out.w;
  block_geometry(g, "fold", o.kernel_size, o.dilation, o.padding, o.stride);
  const int64_t kk = g.kernel_h * g.kernel_w, rows = input.size(-2), blocks = input.size(-1);
  EMBER_CHECK(rows % kk == 0, "fold: Expected size of input's dimension ", batched ? 1 : 0,
              " to be divisible by the product of kernel_size, but got input.size(", batched ? 1 : 0, ")=", rows,
              " and kernel_size=(", g.kernel_h, ", ", g.kernel_w, ")");
  EMBER_CHECK(g.out_h >= 1 && g.out_w >= 1 && blocks == g.out_h * g.out_w, "fold: Given output_size=(", out.h, ", ",
              out.w, "), kernel_size=(", g.kernel_h, ", ", g.kernel_w, "), dilation=(", g.dilation_h, ", ",
              g.dilation_w, "), padding=(", g.pad_h, ", ", g.pad_w, "), stride=(", g.stride_h, ", ", g.stride_w,
              "), expected size of input's dimension ", batched ? 2 : 1,
              " to match the calculated number of sliding blocks ", g.out_h, " * ", g.out_w, " = ",
              g.out_h * g.out_w, ", but got input.size(", batched ? 2 : 1, ")=", blocks, ".");
  EMBER_CHECK(input.is_floating_point(), "fold: expected a floating point input, got dtype ", input.dtype());
  g.channels = rows / kk;
  return col2im_op(input, g, batched);
}

}  // namespace nn::functional
}  // namespace ember
