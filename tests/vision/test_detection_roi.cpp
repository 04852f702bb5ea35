// vision::ops RoI poolings (roi_align, roi_pool, ps_roi_align, ps_roi_pool)
// and deform_conv2d against torchvision 0.14 fixtures
// (scripts/fixtures/vision_detection_ops.py): forward and input gradients in
// float64 and float32, rois partly outside the map, of zero size and with
// x2 < x1; boxes as a list; empty rois; float64 gradchecks; bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <ember/ember.h>
#include <ember/vision/ops.h>

#include "detection_fixtures.h"

namespace ember {
namespace detection_roi_test {

namespace ops = vision::ops;
using autograd::variable_list;
using testing::det_npy;
using testing::det_path;
using testing::expect_close;
using testing::expect_error;
using testing::grads_of;

struct RoiCase {
  std::string name, op;
  int64_t ph, pw;
  double scale;
  int64_t sampling_ratio;
  bool aligned;
};

std::vector<RoiCase> roi_cases() {
  std::ifstream f(det_path("params.tsv"));
  EXPECT_TRUE(f.good()) << "params.tsv";
  std::vector<RoiCase> cases;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    RoiCase c;
    int aligned = 0;
    ss >> c.name >> c.op >> c.ph >> c.pw >> c.scale >> c.sampling_ratio >> aligned;
    c.aligned = aligned != 0;
    if (!c.name.empty()) cases.push_back(c);
  }
  return cases;
}

Tensor run(const RoiCase& c, const Tensor& x, const Tensor& rois) {
  const ops::ExpandingInts size{c.ph, c.pw};
  if (c.op == "roi_align") return ops::roi_align(x, rois, size, c.scale, c.sampling_ratio, c.aligned);
  if (c.op == "roi_pool") return ops::roi_pool(x, rois, size, c.scale);
  if (c.op == "ps_roi_align") return ops::ps_roi_align(x, rois, size, c.scale, c.sampling_ratio);
  return ops::ps_roi_pool(x, rois, size, c.scale);
}

Tensor input_of(const RoiCase& c) {
  return det_npy(c.op.rfind("ps_", 0) == 0 ? "roi_x18" : "roi_x4");
}

TEST(DetectionRoi, ForwardAndBackwardMatchTorchvision) {
  const std::vector<RoiCase> cases = roi_cases();
  ASSERT_EQ(cases.size(), 10u);
  for (const RoiCase& c : cases) {
    const Tensor rois = det_npy(c.name + "_rois");
    const Tensor x = input_of(c).requires_grad_();
    const Tensor out = run(c, x, rois);
    expect_close(out, det_npy(c.name + "_out"), 1e-12, 1e-12, c.name);
    const Tensor gx = grads_of(out, det_npy(c.name + "_gout"), {x})[0];
    // Note [ps_roi_pool backward]: Ember's gradient is the forward's
    // derivative, torchvision's differs for bins at the last row or column.
    const std::string reference = c.op == "ps_roi_pool" ? "_gx_fd" : "_gx";
    expect_close(gx, det_npy(c.name + reference), 1e-12, 1e-12, c.name + " input gradient");
    if (c.op == "ps_roi_pool" && c.name == "ps_roi_pool_b")  // no bin reaches the border: torchvision's too
      expect_close(gx, det_npy(c.name + "_gx"), 1e-12, 1e-12, c.name + " torchvision's input gradient");
    // float32: torchvision's float32 kernel, the same arithmetic.
    const Tensor out32 = run(c, input_of(c).to(kFloat32), rois.to(kFloat32));
    EXPECT_EQ(out32.dtype(), kFloat32);
    expect_close(out32, det_npy(c.name + "_out_f32"), 1e-6, 1e-6, c.name + " float32");
  }
}

// A list of per-image [Ki, 4] boxes is the [K, 5] tensor with image indices.
TEST(DetectionRoi, BoxListEqualsRoiTensor) {
  const Tensor x = det_npy("roi_x4"), x18 = det_npy("roi_x18");
  const Tensor b0 = tensor({{1.0, 1.5, 6.0, 7.0}, {-2.0, -1.5, 4.3, 3.2}}, kFloat64);
  const Tensor b1 = tensor({{0.0, 0.0, 10.0, 8.0}}, kFloat64);
  const Tensor rois =
      tensor({{0.0, 1.0, 1.5, 6.0, 7.0}, {0.0, -2.0, -1.5, 4.3, 3.2}, {1.0, 0.0, 0.0, 10.0, 8.0}}, kFloat64);
  EXPECT_TRUE(ops::convert_boxes_to_roi_format({b0, b1}).equal(rois));
  EXPECT_TRUE(ops::roi_align(x, {b0, b1}, 3, 0.5, 2, true).equal(ops::roi_align(x, rois, 3, 0.5, 2, true)));
  EXPECT_TRUE(ops::roi_pool(x, {b0, b1}, {2, 3}).equal(ops::roi_pool(x, rois, {2, 3})));
  EXPECT_TRUE(ops::ps_roi_align(x18, {b0, b1}, 3).equal(ops::ps_roi_align(x18, rois, 3)));
  EXPECT_TRUE(ops::ps_roi_pool(x18, {b0, b1}, 3).equal(ops::ps_roi_pool(x18, rois, 3)));
  // The modules call the functions with their arguments.
  ops::RoIAlign m(ops::ExpandingInts{3, 3}, 0.5, 2, true);
  EXPECT_TRUE(m->forward(x, rois).equal(ops::roi_align(x, rois, 3, 0.5, 2, true)));
  std::ostringstream os;
  os << *m;
  EXPECT_EQ(os.str(), "RoIAlign(output_size=(3, 3), spatial_scale=0.5, sampling_ratio=2, aligned=True)");
}

TEST(DetectionRoi, EmptyRoisGiveEmptyOutputsAndZeroGradients) {
  const Tensor x = det_npy("roi_x18").requires_grad_();
  const Tensor none = zeros({0, 5}, kFloat64);
  const std::vector<Tensor> outs = {ops::roi_align(x, none, 2), ops::roi_pool(x, none, 2),
                                    ops::ps_roi_align(x, none, 3), ops::ps_roi_pool(x, none, 3)};
  EXPECT_EQ(outs[0].sizes(), IntArrayRef({0, 18, 2, 2}));
  EXPECT_EQ(outs[1].sizes(), IntArrayRef({0, 18, 2, 2}));
  EXPECT_EQ(outs[2].sizes(), IntArrayRef({0, 2, 3, 3}));
  EXPECT_EQ(outs[3].sizes(), IntArrayRef({0, 2, 3, 3}));
  for (const Tensor& o : outs) {
    const Tensor g = autograd::grad({o.sum()}, {x})[0];
    EXPECT_EQ(g.abs().sum().item<double>(), 0.0);
  }
  EXPECT_EQ(ops::roi_align(x, std::vector<Tensor>{zeros({0, 4}, kFloat64)}, 2).size(0), 0);
}

// Analytic gradients of the backward kernels against central differences.
// Boxes avoid pixel-boundary kinks of the bilinear samples (positions at
// non-integers) and, for roi_pool, the input has distinct values.
TEST(DetectionRoi, GradchecksInFloat64) {
  Generator gen(11);
  const Tensor x = rand({2, 4, 7, 8}, kFloat64, &gen).requires_grad_();
  const Tensor x8 = rand({2, 8, 7, 8}, kFloat64, &gen).requires_grad_();
  const Tensor rois =
      tensor({{0.0, 0.3, 0.7, 5.1, 6.2}, {1.0, 2.2, 1.4, 7.3, 4.9}, {1.0, -1.1, 3.3, 2.6, 8.4}}, kFloat64);
  auto check = [](const char* what, const autograd::GradcheckFn& fn, const Tensor& in) {
    EXPECT_TRUE(autograd::gradcheck(fn, {in})) << what;
  };
  check(
      "roi_align",
      [&](const variable_list& v) {
        return variable_list{ops::roi_align(v[0], rois, {2, 3}, 1.0, 2)};
      },
      x);
  check(
      "roi_align aligned adaptive",
      [&](const variable_list& v) { return variable_list{ops::roi_align(v[0], rois, 2, 0.75, -1, true)}; }, x);
  check(
      "roi_pool",
      [&](const variable_list& v) {
        return variable_list{ops::roi_pool(v[0], rois, {2, 3}, 1.0)};
      },
      x);
  check(
      "ps_roi_align", [&](const variable_list& v) { return variable_list{ops::ps_roi_align(v[0], rois, 2, 1.0, 2)}; },
      x8);
  check(
      "ps_roi_pool", [&](const variable_list& v) { return variable_list{ops::ps_roi_pool(v[0], rois, 2, 1.0)}; }, x8);
}

TEST(DetectionRoi, BadInputRaisesClearErrors) {
  const Tensor x = det_npy("roi_x4");
  expect_error(
      [&] {
        ops::roi_align(x, zeros({2, 3, 5}, kFloat64), 2);
      },
      "roi_align: boxes should be a 2d tensor, got 3D");
  expect_error(
      [&] {
        ops::roi_align(x, zeros({2, 4}, kFloat64), 2);
      },
      "roi_align: The boxes tensor shape is not correct as Tensor[K, 5]");
  expect_error(
      [&] {
        ops::roi_pool(x, std::vector<Tensor>{zeros({2, 5}, kFloat64)}, 2);
      },
      "roi_pool: The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]");
  expect_error(
      [&] {
        ops::roi_align(x, tensor({{2.0, 0.0, 0.0, 3.0, 3.0}}, kFloat64), 2);
      },
      "roi_align: box 0 has image index 2, but the input holds 2 images");
  expect_error(
      [&] {
        ops::ps_roi_pool(x, tensor({{0.0, 0.0, 0.0, 3.0, 3.0}, {1.0, 0.0, 0.0, 3.0, 3.0}}, kFloat64), 3);
      },
      "ps_roi_pool: input channels must be a multiple of pooling height * pooling width, got 4 channels");
  expect_error(
      [&] {
        ops::roi_pool(x, tensor({{-1.0, 0.0, 0.0, 3.0, 3.0}}, kFloat64), 2);
      },
      "box 0 has image index -1");
  expect_error(
      [&] {
        ops::roi_align(x, tensor({{0.5, 0.0, 0.0, 3.0, 3.0}}, kFloat64), 2);
      },
      "box 0 has image index 0.5");
  expect_error(
      [&] {
        ops::roi_align(x, tensor({{0.0, 0.0, 0.0, 3.0, 3.0}}, kFloat32), 2);
      },
      "roi_align: boxes (float32) and input (float64) should have the same dtype");
  expect_error(
      [&] {
        ops::roi_align(x[0], tensor({{0.0, 0.0, 0.0, 3.0, 3.0}}, kFloat64), 2);
      },
      "roi_align: input should be a 4d tensor");
  expect_error(
      [&] {
        ops::roi_align(x, tensor({{0.0, 0.0, 0.0, 3.0, 3.0}}, kFloat64), {0, 2});
      },
      "roi_align: output_size should be positive");
  // Note [Adaptive sampling of inverted boxes]: torchvision fails here too.
  expect_error(
      [&] {
        ops::roi_align(x, tensor({{1.0, 6.0, 2.0, 2.5, 5.0}}, kFloat64), 3, 1.0, 0, true);
      },
      "roi_align: box 0 has x2 < x1 or y2 < y1");
  EXPECT_NO_THROW(ops::roi_align(x, tensor({{1.0, 6.0, 2.0, 2.5, 5.0}}, kFloat64), 3, 1.0, 2, true));
}

// The ops route through their slots: on the test device (whose backend runs
// the CPU kernels on its own memory) they give the CPU's results, on that device.
TEST(DetectionRoi, RunsOnTheTestDevice) {
  const Tensor x = det_npy("roi_x4"), rois = det_npy("roi_align_a_rois");
  const Tensor xd = x.to(kTestDevice).requires_grad_(), rd = rois.to(kTestDevice);
  const Tensor y = ops::roi_align(xd, rd, {3, 4}, 1.0, -1, false);
  EXPECT_EQ(y.device(), kTestDevice);
  expect_close(y.to(kCPU), det_npy("roi_align_a_out"), 1e-12, 1e-12, "roi_align on the test device");
  const Tensor g = grads_of(y, det_npy("roi_align_a_gout").to(kTestDevice), {xd})[0];
  EXPECT_EQ(g.device(), kTestDevice);
  expect_close(g.to(kCPU), det_npy("roi_align_a_gx"), 1e-12, 1e-12, "roi_align gradient on the test device");
  const Tensor boxes = det_npy("nms_boxes"), scores = det_npy("nms_scores");
  const Tensor keep = ops::nms(boxes.to(kTestDevice), scores.to(kTestDevice), 0.5);
  EXPECT_EQ(keep.device(), kTestDevice);
  EXPECT_TRUE(keep.to(kCPU).equal(det_npy("nms_keep_05")));
  EXPECT_TRUE(ops::roi_pool(xd, rd, 2).to(kCPU).equal(ops::roi_pool(x, rois, 2)));
}

// ---- deform_conv2d ----

struct DeformParams {
  int64_t sh, sw, ph, pw, dh, dw;
  bool mask;
};

DeformParams deform_params(const std::string& c) {
  std::ifstream f(det_path(c + "_params.txt"));
  DeformParams p{};
  int mask = 0;
  f >> p.sh >> p.sw >> p.ph >> p.pw >> p.dh >> p.dw >> mask;
  p.mask = mask != 0;
  return p;
}

TEST(DetectionDeformConv, ForwardAndGradientsMatchTorchvision) {
  for (const std::string c : {"deform_a", "deform_b", "deform_c"}) {
    const DeformParams p = deform_params(c);
    const Tensor x = det_npy(c + "_x").requires_grad_(), offset = det_npy(c + "_offset").requires_grad_();
    const Tensor weight = det_npy(c + "_weight").requires_grad_(), bias = det_npy(c + "_bias").requires_grad_();
    std::vector<Tensor> inputs{x, offset, weight, bias};
    ops::DeformConv2dOptions o{.stride = {p.sh, p.sw}, .padding = {p.ph, p.pw}, .dilation = {p.dh, p.dw}};
    if (p.mask) {
      o.mask = det_npy(c + "_mask").requires_grad_();
      inputs.push_back(*o.mask);
    }
    const Tensor out = ops::deform_conv2d(x, offset, weight, bias, o);
    expect_close(out, det_npy(c + "_out"), 1e-11, 1e-11, c);
    const auto g = grads_of(out, det_npy(c + "_gout"), inputs);
    const char* names[] = {"x", "offset", "weight", "bias", "mask"};
    for (size_t i = 0; i < inputs.size(); ++i)
      expect_close(g[i], det_npy(c + "_g" + names[i]), 1e-10, 1e-10, c + " gradient of " + names[i]);
    // float32 against the float64 reference.
    ops::DeformConv2dOptions o32 = o;
    if (p.mask) o32.mask = o.mask->detach().to(kFloat32);
    const Tensor out32 = ops::deform_conv2d(x.detach().to(kFloat32), offset.detach().to(kFloat32),
                                            weight.detach().to(kFloat32), bias.detach().to(kFloat32), o32);
    expect_close(out32, det_npy(c + "_out"), 1e-4, 1e-4, c + " float32");
  }
}

TEST(DetectionDeformConv, GradcheckInFloat64) {
  Generator gen(3);
  const Tensor x = rand({1, 4, 5, 5}, kFloat64, &gen).requires_grad_();
  // Offsets away from integers, so no sample sits on a kink of the bilinear weights.
  const Tensor offset = (rand({1, 2 * 2 * 4, 5, 5}, kFloat64, &gen) * 0.8 + 0.1).requires_grad_();
  const Tensor mask = rand({1, 2 * 4, 5, 5}, kFloat64, &gen).requires_grad_();
  const Tensor weight = randn({4, 2, 2, 2}, kFloat64, &gen).requires_grad_();
  const Tensor bias = randn({4}, kFloat64, &gen).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const variable_list& v) {
        return variable_list{ops::deform_conv2d(v[0], v[1], v[3], v[4], {.padding = 1, .dilation = 2, .mask = v[2]})};
      },
      {x, offset, mask, weight, bias}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const variable_list& v) {
        return variable_list{ops::deform_conv2d(v[0], v[1], v[2], {}, {.padding = 1, .dilation = 2})};
      },
      {x, offset, weight}));
}

TEST(DetectionDeformConv, ZeroOffsetsAndUnitMaskIsAConvolution) {
  Generator gen(4);
  const Tensor x = randn({2, 6, 9, 7}, kFloat64, &gen), w = randn({4, 3, 3, 3}, kFloat64, &gen);
  const Tensor b = randn({4}, kFloat64, &gen);
  const Tensor offset = zeros({2, 2 * 9, 5, 7}, kFloat64);
  const Tensor y = ops::deform_conv2d(x, offset, w, b, {.stride = {2, 1}, .padding = 1});
  const Tensor ref = nn::functional::conv2d(x, w, {.bias = b, .stride = {2, 1}, .padding = 1, .groups = 2});
  expect_close(y, ref, 1e-12, 1e-12, "deform_conv2d with zero offsets vs conv2d");
}

TEST(DetectionDeformConv, BadInputRaisesClearErrors) {
  const Tensor x = zeros({1, 4, 6, 6}), w = zeros({2, 4, 3, 3});
  expect_error(
      [&] {
        ops::deform_conv2d(x, zeros({1, 17, 4, 4}), w);
      },
      "deform_conv2d: the shape of the offset tensor at dimension 1 is not valid");
  expect_error(
      [&] {
        ops::deform_conv2d(x, zeros({1, 10, 4, 4}), w);
      },
      "Got offset.shape[1]=10, while 2 * weight.size[2] * weight.size[3]=18");
  expect_error(
      [&] {
        ops::deform_conv2d(x, zeros({1, 18, 5, 4}), w);
      },
      "offset output dims: (5, 4) - computed output dims: (4, 4)");
  expect_error(
      [&] {
        ops::deform_conv2d(x, zeros({1, 18, 4, 4}), w, {}, {.mask = zeros({1, 8, 4, 4})});
      },
      "mask.shape[1] is not valid: got: 8 expected: 9");
  expect_error([&] { ops::deform_conv2d(x, zeros({2, 18, 4, 4}), w); }, "invalid batch size of offset");
  expect_error(
      [&] {
        ops::deform_conv2d(x, zeros({1, 18, 4, 4}), zeros({2, 3, 3, 3}));
      },
      "input has 4 channels, which is not a multiple of weight.size(1) = 3");
  expect_error([&] { ops::deform_conv2d(x, zeros({1, 18, 4, 4}), w, {}, {.stride = 0}); }, "stride_h: 0");
}

}  // namespace detection_roi_test
}  // namespace ember
