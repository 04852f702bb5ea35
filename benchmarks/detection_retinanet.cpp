// Suite models, RetinaNet-ResNet50-FPN against torchvision 0.14's
// (peers/retinanet.py, Debian's python3: torchvision's detection models are
// Python only).
//
// The model is torchvision's retinanet_resnet50_fpn as built with trained
// weights (FrozenBatchNorm2d backbone, trainable_backbone_layers 3, 91
// classes), with Ember's random init; cls_logits' bias is set to -2
// (probability 0.12) so that thousands of anchors pass score_thresh and the
// post-processing (top-k per level, NMS, 300 detections) does its full work.
// Ember writes the state_dict to the scratch folder and the peer loads it.
//
// - retinanet_r50_fpn_infer_800: eval on one 3 x 800 x 800 image (resized to
//   800, batched to 800 x 800). Check: the number of detections and the sum
//   of their scores.
// - retinanet_r50_fpn_train_step_2img: training mode on two images
//   (3 x 600 x 800 and 3 x 800 x 600, resized to min_size 800) with three
//   boxes each: forward, the two losses, backward of their sum (no optimizer
//   step; gradients set to none before each run). Check: the two losses.
// - retinanet_r50_fpn_infer_320 / retinanet_r50_fpn_train_step_320: the same
//   at a small size, the model's transform at min_size = max_size = 320: eval
//   on one 3 x 320 x 320 image, and a training step on one 3 x 320 x 320 image
//   with three boxes (its classification loss is the fused
//   sigmoid_focal_loss over ~19 K anchors x 91 classes).
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.h"
#include "ember/models/detection/retinanet.h"

namespace {

using ember::Tensor;
using ember_bench::Case;
namespace det = ember::models::detection;

// The benchmark's model; its state_dict goes to <scratch>/retinanet.w<i>.bin
// with retinanet.weights.json (key -> shape, in order) for the peer.
det::RetinaNet make_model(int64_t min_size = 800, int64_t max_size = 1333) {
  ember::manual_seed(26);
  ember::models::ResNetOptions resnet_options;
  resnet_options.norm_layer = det::frozen_batch_norm_2d;
  det::BackboneWithFPN backbone =
      det::resnet_fpn_extractor(ember::models::resnet50(resnet_options),
                                {.trainable_layers = 3,
                                 .returned_layers = {2, 3, 4},
                                 .extra_blocks = ember::vision::ops::LastLevelP6P7(256, 256).ptr()});
  det::RetinaNetOptions options{.num_classes = 91};
  options.min_size = {min_size};
  options.max_size = max_size;
  det::RetinaNet model(backbone, options);
  {
    ember::NoGradGuard no_grad;
    model->head->classification_head->cls_logits->bias.fill_(-2.0);
  }
  const std::string base = ember_bench::scratch_dir() + "/retinanet";
  std::string spec = "[";
  int64_t i = 0;
  for (const auto& [key, t] : model->state_dict()) {
    if (t.dtype() != ember::kFloat32) throw std::runtime_error("retinanet bench: non-float32 entry " + key);
    ember_bench::write_raw_tensor(base + ".w" + std::to_string(i) + ".bin", t);
    spec += (i ? ", [\"" : "[\"") + key + "\", " + ember_bench::shape_json(t) + "]";
    ++i;
  }
  std::ofstream(base + ".weights.json") << spec << "]\n";
  return model;
}

// Inputs as raw float32 files <scratch>/retinanet.<name>.bin plus their shapes.
void write_inputs(const std::vector<std::pair<std::string, Tensor>>& inputs) {
  const std::string base = ember_bench::scratch_dir() + "/retinanet";
  std::string spec = "{";
  for (const auto& [name, t] : inputs) {
    ember_bench::write_raw_tensor(base + "." + name + ".bin", t.to(ember::kFloat32));
    spec += (spec.size() > 1 ? ", \"" : "\"") + name + "\": " + ember_bench::shape_json(t);
  }
  std::ofstream(base + ".inputs.json") << spec << "}\n";
}

ember_bench::ExternalPeer torchvision_peer(const std::string& workload) {
  return {"torchvision",
          {ember_bench::peer_python(), ember_bench::source_dir() + "/peers/retinanet.py", workload, "--dir", ember_bench::scratch_dir()}};
}

ember_bench::Workload infer_800() {
  return {"models", "retinanet_r50_fpn_infer_800", [] {
            det::RetinaNet model = make_model();
            model->eval();
            ember::Generator gen(27);
            const Tensor image = ember::rand({3, 800, 800}, ember::kFloat32, &gen);
            write_inputs({{"image0", image}});
            Case c;
            c.ember = [=] {
              ember::NoGradGuard no_grad;
              const auto out = model->forward({image});
              const Tensor& scores = out.detections[0].at("scores");
              return ember::stack(
                  {ember::scalar_tensor(static_cast<double>(scores.numel()), ember::kFloat32), scores.sum()});
            };
            c.rtol = 1e-3;
            c.atol = 1e-2;
            c.peer_name = "";
            c.external_peers = {torchvision_peer("infer_800")};
            return c;
          }};
}

ember_bench::Workload train_step_2img() {
  return {"models", "retinanet_r50_fpn_train_step_2img", [] {
            det::RetinaNet model = make_model();
            model->train();
            ember::Generator gen(28);
            const Tensor image0 = ember::rand({3, 600, 800}, ember::kFloat32, &gen);
            const Tensor image1 = ember::rand({3, 800, 600}, ember::kFloat32, &gen);
            const Tensor boxes0 = ember::tensor({50.0f, 60.0f, 300.0f, 400.0f, 400.0f, 100.0f, 780.0f, 500.0f,
                                                 10.0f, 450.0f, 120.0f, 590.0f})
                                      .view({3, 4});
            const Tensor boxes1 = ember::tensor({20.0f, 30.0f, 580.0f, 700.0f, 100.0f, 100.0f, 160.0f, 180.0f,
                                                 300.0f, 500.0f, 500.0f, 790.0f})
                                      .view({3, 4});
            const Tensor labels0 = ember::tensor({1.0f, 17.0f, 3.0f}), labels1 = ember::tensor({62.0f, 1.0f, 44.0f});
            write_inputs({{"image0", image0}, {"image1", image1}, {"boxes0", boxes0}, {"boxes1", boxes1},
                          {"labels0", labels0}, {"labels1", labels1}});
            const std::vector<det::Target> targets = {
                {{"boxes", boxes0}, {"labels", labels0.to(ember::kInt64)}},
                {{"boxes", boxes1}, {"labels", labels1.to(ember::kInt64)}}};
            Case c;
            c.ember = [=] {
              model->zero_grad();
              const auto out = model->forward({image0, image1}, targets);
              const Tensor cls = out.losses.at("classification"), reg = out.losses.at("bbox_regression");
              (cls + reg).backward();
              return ember::stack({cls.detach(), reg.detach()});
            };
            c.rtol = 1e-3;
            c.atol = 1e-4;
            c.peer_name = "";
            c.external_peers = {torchvision_peer("train_step_2img")};
            return c;
          }};
}

ember_bench::Workload infer_320() {
  return {"models", "retinanet_r50_fpn_infer_320", [] {
            det::RetinaNet model = make_model(320, 320);
            model->eval();
            ember::Generator gen(29);
            const Tensor image = ember::rand({3, 320, 320}, ember::kFloat32, &gen);
            write_inputs({{"image0", image}});
            Case c;
            c.ember = [=] {
              ember::NoGradGuard no_grad;
              const auto out = model->forward({image});
              const Tensor& scores = out.detections[0].at("scores");
              return ember::stack(
                  {ember::scalar_tensor(static_cast<double>(scores.numel()), ember::kFloat32), scores.sum()});
            };
            c.rtol = 1e-3;
            c.atol = 1e-2;
            c.peer_name = "";
            c.external_peers = {torchvision_peer("infer_320")};
            return c;
          }};
}

ember_bench::Workload train_step_320() {
  return {"models", "retinanet_r50_fpn_train_step_320", [] {
            det::RetinaNet model = make_model(320, 320);
            model->train();
            ember::Generator gen(30);
            const Tensor image0 = ember::rand({3, 320, 320}, ember::kFloat32, &gen);
            const Tensor boxes0 = ember::tensor({20.0f, 30.0f, 150.0f, 200.0f, 160.0f, 40.0f, 310.0f, 220.0f,
                                                 10.0f, 250.0f, 60.0f, 300.0f})
                                      .view({3, 4});
            const Tensor labels0 = ember::tensor({1.0f, 17.0f, 3.0f});
            write_inputs({{"image0", image0}, {"boxes0", boxes0}, {"labels0", labels0}});
            const std::vector<det::Target> targets = {{{"boxes", boxes0}, {"labels", labels0.to(ember::kInt64)}}};
            Case c;
            c.ember = [=] {
              model->zero_grad();
              const auto out = model->forward({image0}, targets);
              const Tensor cls = out.losses.at("classification"), reg = out.losses.at("bbox_regression");
              (cls + reg).backward();
              return ember::stack({cls.detach(), reg.detach()});
            };
            c.rtol = 1e-3;
            c.atol = 1e-4;
            c.peer_name = "";
            c.external_peers = {torchvision_peer("train_step_320")};
            return c;
          }};
}

[[maybe_unused]] const bool kRegistered =
    ember_bench::add_workloads({infer_800(), train_step_2img(), infer_320(), train_step_320()});

}  // namespace
