#include "ember/datasets/coco.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include <ember/core/error.h>
#include <ember/io/image.h>
#include <ember/ops/factories.h>
#include <ember/ops/shape.h>

#include "format_util.h"
#include <ember/serialize/json_cursor.h>

namespace ember::datasets {

Tensor coco_boxes_to_xyxy(const Tensor& xywh) {
  EMBER_CHECK(xywh.dim() == 2 && xywh.size(1) == 4,
              "coco_boxes_to_xyxy: expected boxes of shape [N, 4], got ", xywh.sizes());
  Tensor xy = xywh.narrow(1, 0, 2);
  Tensor wh = xywh.narrow(1, 2, 2);
  return cat({xy, xy + wh}, 1);
}

namespace {

constexpr const char* kName = "CocoDetection";

CocoImage read_image_record(serialize::json::Cursor& in) {
  CocoImage img;
  bool has_id = false, has_file = false;
  const size_t at = in.offset();
  in.begin_object();
  std::string key;
  while (in.next_member(key)) {
    if (key == "id") {
      img.id = in.read_integer();
      has_id = true;
    } else if (key == "file_name") {
      img.file_name = in.read_string();
      has_file = true;
    } else if (key == "width") {
      img.width = in.skip_null() ? 0 : in.read_integer();
    } else if (key == "height") {
      img.height = in.skip_null() ? 0 : in.read_integer();
    } else {
      in.skip_value();
    }
  }
  if (!has_id || !has_file)
    EMBER_FAIL("an image record (at byte ", at, ") has no \"", has_id ? "file_name" : "id", "\"");
  return img;
}

CocoCategory read_category_record(serialize::json::Cursor& in) {
  CocoCategory cat;
  bool has_id = false;
  const size_t at = in.offset();
  in.begin_object();
  std::string key;
  while (in.next_member(key)) {
    if (key == "id") {
      cat.id = in.read_integer();
      has_id = true;
    } else if (key == "name") {
      cat.name = in.read_string();
    } else if (key == "supercategory") {
      cat.supercategory = in.skip_null() ? std::string() : in.read_string();
    } else {
      in.skip_value();
    }
  }
  if (!has_id) EMBER_FAIL("a category record (at byte ", at, ") has no \"id\"");
  return cat;
}

CocoAnnotation read_annotation_record(serialize::json::Cursor& in, bool keep_segmentation) {
  CocoAnnotation ann;
  bool has_id = false, has_image = false, has_category = false, has_bbox = false, has_area = false;
  const size_t at = in.offset();
  in.begin_object();
  std::string key;
  while (in.next_member(key)) {
    if (key == "id") {
      ann.id = in.read_integer();
      has_id = true;
    } else if (key == "image_id") {
      ann.image_id = in.read_integer();
      has_image = true;
    } else if (key == "category_id") {
      ann.category_id = in.read_integer();
      has_category = true;
    } else if (key == "bbox") {
      in.begin_array();
      size_t n = 0;
      while (in.next_element()) {
        const double v = in.read_number();
        if (n < 4) ann.bbox[n] = v;
        ++n;
      }
      if (n != 4)
        EMBER_FAIL("the annotation at byte ", at, " has a bbox of ", n,
                   " numbers (expected 4: x, y, width, height)");
      has_bbox = true;
    } else if (key == "area") {
      ann.area = in.read_number();
      has_area = true;
    } else if (key == "iscrowd") {
      const char c = in.peek();
      ann.iscrowd = (c == 't' || c == 'f') ? int64_t{in.read_bool()} : in.read_integer();
    } else if (key == "segmentation" && keep_segmentation) {
      ann.segmentation = std::string(in.skip_value());
    } else {
      in.skip_value();
    }
  }
  const char* missing = !has_id         ? "id"
                        : !has_image    ? "image_id"
                        : !has_category ? "category_id"
                        : !has_bbox     ? "bbox"
                                        : nullptr;
  if (missing)
    EMBER_FAIL("the annotation at byte ", at, " has no \"", missing,
               "\" (CocoDetection reads instances files: id, image_id, category_id, bbox)");
  if (!has_area) ann.area = ann.bbox[2] * ann.bbox[3];
  return ann;
}

}  // namespace

CocoDetection::CocoDetection(std::string root, const std::string& ann_file,
                             CocoDetectionOptions options)
    : root_(std::move(root)), options_(std::move(options)) {
  EMBER_CHECK(!options_.transforms || (!options_.transform && !options_.target_transform), kName,
              ": only transforms or transform/target_transform can be given, not both");
  EMBER_CHECK(detail::is_regular_file(ann_file), kName, ": annotation file ", ann_file,
              " not found (expected an instances JSON such as annotations/instances_val2017.json). "
              "Ember never downloads.");
  EMBER_CHECK(
      detail::is_directory(root_), kName, ": image folder ", root_,
      " not found (expected the folder of the images, such as val2017/). Ember never downloads.");

  // Parse the whole file (top level: info, licenses, images, annotations,
  // categories; anything else is skipped).
  {
    detail::MappedFile file(ann_file, kName);
    serialize::json::Cursor in(file.text(), ann_file);
    try {
      in.begin_object();
      std::string key;
      while (in.next_member(key)) {
        if (key == "images") {
          in.begin_array();
          while (in.next_element()) {
            images_.push_back(read_image_record(in));
            file.release_before(in.offset());
          }
        } else if (key == "annotations") {
          in.begin_array();
          while (in.next_element()) {
            annotations_.push_back(read_annotation_record(in, options_.keep_segmentation));
            file.release_before(in.offset());
          }
        } else if (key == "categories") {
          in.begin_array();
          while (in.next_element()) categories_.push_back(read_category_record(in));
        } else {
          in.skip_value();
        }
      }
      in.finish();
    } catch (const Error& e) {
      EMBER_FAIL(kName, ": ", ann_file, ": ", e.what());
    }
  }

  // Index: images sorted by id; annotations grouped per image in file order.
  std::unordered_map<int64_t, int64_t> image_pos;  // id -> index in images_
  image_pos.reserve(images_.size());
  for (size_t i = 0; i < images_.size(); ++i) {
    const bool inserted = image_pos.emplace(images_[i].id, static_cast<int64_t>(i)).second;
    EMBER_CHECK(inserted, kName, ": ", ann_file, ": image id ", images_[i].id,
                " appears more than once");
  }
  {
    std::unordered_set<int64_t> ann_ids;
    ann_ids.reserve(annotations_.size());
    for (const CocoAnnotation& a : annotations_)
      EMBER_CHECK(ann_ids.insert(a.id).second, kName, ": ", ann_file, ": annotation id ", a.id,
                  " appears more than once");
  }
  ids_.reserve(images_.size());
  for (const CocoImage& img : images_) ids_.push_back(img.id);
  std::sort(ids_.begin(), ids_.end());
  std::unordered_map<int64_t, int64_t> sample_of_id;
  sample_of_id.reserve(ids_.size());
  sample_image_.resize(ids_.size());
  for (size_t s = 0; s < ids_.size(); ++s) {
    sample_of_id[ids_[s]] = static_cast<int64_t>(s);
    sample_image_[s] = image_pos[ids_[s]];
  }
  // Counting sort of the annotations by sample; annotations of images that are
  // not in the file are never returned (as pycocotools).
  std::vector<int64_t> sample_of_ann(annotations_.size(), -1);
  ann_begin_.assign(ids_.size() + 1, 0);
  for (size_t a = 0; a < annotations_.size(); ++a) {
    auto it = sample_of_id.find(annotations_[a].image_id);
    if (it == sample_of_id.end()) continue;
    sample_of_ann[a] = it->second;
    ++ann_begin_[static_cast<size_t>(it->second) + 1];
  }
  std::partial_sum(ann_begin_.begin(), ann_begin_.end(), ann_begin_.begin());
  ann_index_.resize(static_cast<size_t>(ann_begin_.back()));
  std::vector<int64_t> fill(ann_begin_.begin(), ann_begin_.end() - 1);
  for (size_t a = 0; a < annotations_.size(); ++a)
    if (sample_of_ann[a] >= 0)
      ann_index_[static_cast<size_t>(fill[sample_of_ann[a]]++)] = static_cast<int64_t>(a);
}

const CocoImage& CocoDetection::image_info(int64_t index) const {
  detail::check_index(kName, index, size());
  return images_[static_cast<size_t>(sample_image_[static_cast<size_t>(index)])];
}

CocoTarget CocoDetection::target(int64_t index) const {
  detail::check_index(kName, index, size());
  CocoTarget t;
  t.image_id = ids_[static_cast<size_t>(index)];
  const int64_t begin = ann_begin_[static_cast<size_t>(index)];
  const int64_t n = ann_begin_[static_cast<size_t>(index) + 1] - begin;
  t.boxes = empty({n, 4}, kFloat32);
  t.labels = empty({n}, kInt64);
  t.area = empty({n}, kFloat32);
  t.iscrowd = empty({n}, kInt64);
  t.annotation_ids = empty({n}, kInt64);
  float* boxes = t.boxes.data_ptr<float>();
  int64_t* labels = t.labels.data_ptr<int64_t>();
  float* area = t.area.data_ptr<float>();
  int64_t* iscrowd = t.iscrowd.data_ptr<int64_t>();
  int64_t* ids = t.annotation_ids.data_ptr<int64_t>();
  t.annotations.reserve(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const CocoAnnotation& a =
        annotations_[static_cast<size_t>(ann_index_[static_cast<size_t>(begin + k)])];
    for (int j = 0; j < 4; ++j)
      boxes[4 * k + j] = static_cast<float>(a.bbox[static_cast<size_t>(j)]);
    labels[k] = a.category_id;
    area[k] = static_cast<float>(a.area);
    iscrowd[k] = a.iscrowd;
    ids[k] = a.id;
    t.annotations.push_back(a);
  }
  return t;
}

CocoSample CocoDetection::get(int64_t index) {
  const CocoImage& info = image_info(index);
  const std::string path = detail::join_path(root_, info.file_name);
  Tensor image;
  try {
    image = io::read_image(path, io::ImageReadMode::RGB);
  } catch (const Error& e) {
    EMBER_FAIL(kName, ": cannot load image ", info.id, " (", path, "): ", e.what());
  }
  CocoTarget t = target(index);
  if (options_.transforms) return options_.transforms(std::move(image), std::move(t));
  if (options_.transform) image = options_.transform(image);
  if (options_.target_transform) t = options_.target_transform(std::move(t));
  return {std::move(image), std::move(t)};
}

}  // namespace ember::datasets
