// Suite models, detection ops: vision::ops::nms and roi_align against
// torchvision 0.14's (peers/detection_ops.py, Debian's python3; torchvision's
// C++ ops are not part of libtorch, so the peer runs in Python).
//
// - nms_10k: 10,000 float32 boxes in 40 clusters (so that suppression has
//   work to do), random scores, IoU threshold 0.5. Check: the kept indices, equal.
// - roi_align_fpn256_1k_fwd: one FPN level of 2 images of 800x1216 at stride
//   8 ([2, 256, 100, 152] float32), 1,000 boxes of 16-400 pixels, output 7x7,
//   spatial_scale 1/8, sampling_ratio 2 (MultiScaleRoIAlign's settings),
//   without gradient. Check: each roi's sum.
// - roi_align_fpn256_1k_fwd_bwd: the same forward with the features requiring
//   grad, then backward of sum(out * gout). Check: the features' gradient
//   summed per channel.
// - sigmoid_focal_loss_19k_fwd_bwd: RetinaNet's classification loss at 320 x
//   320 (19,206 anchors x 91 classes, float32 logits around -3, one positive
//   class on 1 % of the anchors), reduction "sum", then backward. Check: the
//   loss and the gradient's sum.
//
// Both sides read the same inputs (raw files in the scratch folder).
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.h"
#include "ember/vision/ops.h"

namespace {

using ember::Tensor;
using ember_bench::Case;
namespace ops = ember::vision::ops;

constexpr double kNmsThreshold = 0.5;
constexpr double kRoiScale = 1.0 / 8;
constexpr int64_t kRoiSampling = 2;

// Raw C-order files and <workload>.inputs.json for peers/detection_ops.py.
void write_peer_inputs(const std::string& workload, const std::vector<std::pair<std::string, Tensor>>& inputs) {
  const std::string base = ember_bench::scratch_dir() + "/" + workload;
  std::string spec = "{";
  for (const auto& [name, value] : inputs) {
    const Tensor t = value.contiguous();
    const std::string path = base + "." + name + ".bin";
    std::ofstream f(path, std::ios::binary);
    f.write(static_cast<const char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
    if (!f) throw std::runtime_error("cannot write " + path);
    std::string shape;
    for (int64_t d = 0; d < t.dim(); ++d) shape += (d ? ", " : "") + std::to_string(t.size(d));
    const char* dtype = t.dtype() == ember::kFloat32 ? "float32" : "int64";
    spec += (spec.size() > 1 ? ", \"" : "\"") + name + "\": {\"dtype\": \"" + dtype + "\", \"shape\": [" + shape + "]}";
  }
  std::ofstream(base + ".inputs.json") << spec << "}\n";
}

ember_bench::ExternalPeer torchvision_peer(const std::string& workload) {
  return {
      "torchvision",
      {ember_bench::peer_python(), ember_bench::source_dir() + "/peers/detection_ops.py", workload, "--dir", ember_bench::scratch_dir()}};
}

ember_bench::Workload nms_10k() {
  return {"models", "nms_10k", [] {
            ember::Generator gen(26);
            const int64_t n = 10000;
            const Tensor centers = ember::rand({40, 2}, ember::kFloat32, &gen) * 800;
            const Tensor which = ember::randint(0, 40, {n}, ember::kInt64, &gen);
            const Tensor xy = centers.index({which}) + ember::randn({n, 2}, ember::kFloat32, &gen) * 20;
            const Tensor boxes = ember::cat({xy, xy + ember::rand({n, 2}, ember::kFloat32, &gen) * 80 + 8}, 1);
            const Tensor scores = ember::rand({n}, ember::kFloat32, &gen);
            write_peer_inputs("nms_10k", {{"boxes", boxes}, {"scores", scores}});
            Case c{.ember = [=] { return ops::nms(boxes, scores, kNmsThreshold); }};
            c.peer_name = "";
            c.external_peers = {torchvision_peer("nms_10k")};
            return c;
          }};
}

// The features, rois and upstream gradient of the roi_align workloads.
struct RoiInputs {
  Tensor features, rois, gout;
};

RoiInputs roi_inputs() {
  ember::Generator gen(27);
  const int64_t k = 1000;
  RoiInputs in;
  in.features = ember::randn({2, 256, 100, 152}, ember::kFloat32, &gen);
  const Tensor xy = ember::rand({k, 2}, ember::kFloat32, &gen) * ember::tensor({1000.0f, 600.0f});
  const Tensor wh = ember::rand({k, 2}, ember::kFloat32, &gen) * 384 + 16;
  const Tensor image = ember::randint(0, 2, {k, 1}, ember::kInt64, &gen).to(ember::kFloat32);
  in.rois = ember::cat({image, xy, xy + wh}, 1);
  in.gout = ember::randn({k, 256, 7, 7}, ember::kFloat32, &gen);
  write_peer_inputs("roi_align", {{"features", in.features}, {"rois", in.rois}, {"gout", in.gout}});
  return in;
}

ember_bench::Workload roi_align_fwd() {
  return {"models", "roi_align_fpn256_1k_fwd", [] {
            const RoiInputs in = roi_inputs();
            Case c{.ember =
                       [=] {
                         ember::NoGradGuard no_grad;
                         return ops::roi_align(in.features, in.rois, 7, kRoiScale, kRoiSampling).sum({1, 2, 3});
                       },
                   .rtol = 1e-4,
                   .atol = 1e-3};
            c.peer_name = "";
            c.external_peers = {torchvision_peer("roi_align_fwd")};
            return c;
          }};
}

ember_bench::Workload roi_align_fwd_bwd() {
  return {"models", "roi_align_fpn256_1k_fwd_bwd", [] {
            const RoiInputs in = roi_inputs();
            const Tensor features = in.features.clone().requires_grad_();
            Case c{.ember =
                       [=] {
                         Tensor f = features;
                         f.mutable_grad() = Tensor();
                         const Tensor out = ops::roi_align(f, in.rois, 7, kRoiScale, kRoiSampling);
                         (out * in.gout).sum().backward();
                         return f.grad().sum({0, 2, 3});
                       },
                   .rtol = 1e-4,
                   .atol = 1e-2};
            c.peer_name = "";
            c.external_peers = {torchvision_peer("roi_align_fwd_bwd")};
            return c;
          }};
}

ember_bench::Workload focal_loss_fwd_bwd() {
  return {"models", "sigmoid_focal_loss_19k_fwd_bwd", [] {
            ember::Generator gen(31);
            const int64_t anchors = 19206, classes = 91;
            const Tensor logits = ember::randn({anchors, classes}, ember::kFloat32, &gen) * 2 - 3;
            Tensor targets = ember::zeros({anchors, classes}, ember::kFloat32);
            const Tensor positive = ember::rand({anchors}, ember::kFloat32, &gen).lt(0.01).nonzero().select(1, 0);
            const Tensor label = ember::randint(0, classes, {positive.numel()}, ember::kInt64, &gen);
            targets.index_put_({positive, label}, 1.0);
            write_peer_inputs("focal_loss", {{"logits", logits}, {"targets", targets}});
            const Tensor x = logits.clone().requires_grad_();
            Case c{.ember =
                       [=] {
                         Tensor f = x;
                         f.mutable_grad() = Tensor();
                         const Tensor loss = ops::sigmoid_focal_loss(f, targets, 0.25, 2.0, "sum");
                         loss.backward();
                         return ember::stack({loss.detach(), f.grad().sum()});
                       },
                   .rtol = 1e-4,
                   .atol = 1e-2};
            c.peer_name = "";
            c.external_peers = {torchvision_peer("focal_loss_fwd_bwd")};
            return c;
          }};
}

[[maybe_unused]] const bool kRegistered =
    ember_bench::add_workloads({nms_10k(), roi_align_fwd(), roi_align_fwd_bwd(), focal_loss_fwd_bwd()});

}  // namespace
