#pragma once
// Pascal VOC detection (torchvision.datasets.VOCDetection) in the layout of
// the VOC devkit:
//
//   root/VOCdevkit/VOC<year>/JPEGImages/<id>.jpg
//                            Annotations/<id>.xml
//                            ImageSets/Main/<image_set>.txt   (one id a line)
//
// (VOC 2011's archive adds a folder: root/TrainVal/VOCdevkit/VOC2011, as
// torchvision.) Years 2007-2012; image sets train, trainval, val, and test for
// 2007. Each sample reads its image and parses its XML annotation (expat).
//
//   VOCDetection voc("data", {.year = "2012", .image_set = "val"});
//   auto [image, target] = voc.get(0);   // uint8 [3, H, W] RGB, VOCTarget
//   target.boxes;   // float32 [N, 4] xmin, ymin, xmax, ymax
//   target.labels;  // int64 [N], index into voc_classes()
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/datasets/dataset.h>
#include <ember/datasets/transform.h>

namespace ember::datasets {

// VOC's 20 object classes in their usual (alphabetical) order: aeroplane,
// bicycle, bird, boat, bottle, bus, car, cat, chair, cow, diningtable, dog,
// horse, motorbike, person, pottedplant, sheep, sofa, train, tvmonitor.
const std::vector<std::string>& voc_classes();

// Pixel coordinates as the XML gives them (VOC's are 1-based and inclusive).
struct VOCBox {
  double xmin = 0, ymin = 0, xmax = 0, ymax = 0;
};

// A body part of a person (VOC's person layout annotations).
struct VOCPart {
  std::string name;
  VOCBox bndbox;
};

struct VOCObject {
  std::string name;
  std::string pose;       // "" when the XML has none
  int64_t truncated = 0;  // 0 when the XML has none
  int64_t difficult = 0;  // 0 when the XML has none
  int64_t occluded = 0;   // 0 when the XML has none
  VOCBox bndbox;
  std::vector<VOCPart> parts;
};

// The fields of one <annotation> file.
struct VOCAnnotation {
  std::string folder;
  std::string filename;
  int64_t width = 0, height = 0, depth = 0;  // <size>; 0 when absent
  int64_t segmented = 0;
  std::vector<VOCObject> objects;
};

struct VOCTarget {
  VOCAnnotation annotation;
  Tensor boxes;      // float32 [N, 4]: xmin, ymin, xmax, ymax of each object
  Tensor labels;     // int64 [N]: the index of the object's name in voc_classes()
  Tensor difficult;  // int64 [N]: the objects' difficult flags
};

// Parses a VOC annotation (the text of an .xml file); `path` names it in errors.
// The root must be <annotation>, every object needs a <name> and a <bndbox>
// whose coordinates are numbers. Any object name is accepted here;
// VOCDetection::target raises on names outside voc_classes().
VOCAnnotation parse_voc_xml(std::string_view xml, const std::string& path);

using VOCSample = std::pair<Tensor, VOCTarget>;

struct VOCDetectionOptions {
  std::string year = "2012";
  // "train", "trainval" or "val"; "test" with year "2007".
  std::string image_set = "train";
  ImageTransform transform{};
  std::function<VOCTarget(VOCTarget)> target_transform{};
  // Applied to (image, target) together; not with transform/target_transform.
  std::function<VOCSample(Tensor, VOCTarget)> transforms{};
};

class VOCDetection : public Dataset<VOCSample> {
 public:
  explicit VOCDetection(const std::string& root, VOCDetectionOptions options = {});

  // (image uint8 [3, H, W] RGB, target).
  VOCSample get(int64_t index) override;
  int64_t size() const override { return static_cast<int64_t>(ids_.size()); }

  // The target of sample `index`, without loading the image.
  VOCTarget target(int64_t index) const;
  // The image ids of the image set, in file order.
  const std::vector<std::string>& ids() const { return ids_; }
  // root/VOCdevkit/VOC<year>/JPEGImages/<id>.jpg and .../Annotations/<id>.xml.
  std::string image_path(int64_t index) const;
  std::string annotation_path(int64_t index) const;

 private:
  VOCDetectionOptions options_;
  std::string voc_root_;
  std::vector<std::string> ids_;
};

}  // namespace ember::datasets
