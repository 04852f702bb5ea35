#include "ember/datasets/voc.h"

#include <expat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>

#include <ember/core/error.h>
#include <ember/io/image.h>
#include <ember/ops/factories.h>

#include "format_util.h"

namespace ember::datasets {

const std::vector<std::string>& voc_classes() {
  static const std::vector<std::string> classes = {
      "aeroplane", "bicycle",     "bird",  "boat",        "bottle", "bus",      "car",
      "cat",       "chair",       "cow",   "diningtable", "dog",    "horse",    "motorbike",
      "person",    "pottedplant", "sheep", "sofa",        "train",  "tvmonitor"};
  return classes;
}

namespace {

constexpr const char* kName = "VOCDetection";

// A minimal element tree: tag, the character data directly inside the element
// (for a leaf, ElementTree's .text) and the children in order.
struct XmlNode {
  std::string tag;
  std::string text;
  std::vector<std::unique_ptr<XmlNode>> children;

  const XmlNode* child(std::string_view name) const {
    for (const auto& c : children)
      if (c->tag == name) return c.get();
    return nullptr;
  }
};

struct TreeBuilder {
  std::unique_ptr<XmlNode> root;
  std::vector<XmlNode*> stack;
  XML_Parser parser = nullptr;
  bool too_deep = false;
  // VOC annotations nest 4 levels; the limit keeps hostile files from
  // building (and recursively destroying) arbitrarily deep trees.
  static constexpr size_t kMaxDepth = 64;

  static void start(void* data, const XML_Char* name, const XML_Char**) {
    auto* b = static_cast<TreeBuilder*>(data);
    if (b->stack.size() >= kMaxDepth) {
      b->too_deep = true;
      XML_StopParser(b->parser, XML_FALSE);
      return;
    }
    auto node = std::make_unique<XmlNode>();
    node->tag = name;
    XmlNode* raw = node.get();
    if (b->stack.empty()) {
      b->root = std::move(node);
    } else {
      b->stack.back()->children.push_back(std::move(node));
    }
    b->stack.push_back(raw);
  }
  static void end(void* data, const XML_Char*) {
    static_cast<TreeBuilder*>(data)->stack.pop_back();
  }
  static void chars(void* data, const XML_Char* s, int len) {
    auto* b = static_cast<TreeBuilder*>(data);
    if (!b->stack.empty()) b->stack.back()->text.append(s, static_cast<size_t>(len));
  }
};

std::unique_ptr<XmlNode> parse_xml(std::string_view xml, const std::string& path) {
  std::unique_ptr<XML_ParserStruct, void (*)(XML_Parser)> parser(XML_ParserCreate(nullptr),
                                                                 XML_ParserFree);
  EMBER_CHECK(parser, kName, ": cannot create an XML parser");
  TreeBuilder builder;
  builder.parser = parser.get();
  XML_SetUserData(parser.get(), &builder);
  XML_SetElementHandler(parser.get(), TreeBuilder::start, TreeBuilder::end);
  XML_SetCharacterDataHandler(parser.get(), TreeBuilder::chars);
  EMBER_CHECK(xml.size() <= static_cast<size_t>(std::numeric_limits<int>::max()), kName, ": ", path,
              " is too large for an annotation (", xml.size(), " bytes)");
  if (XML_Parse(parser.get(), xml.data(), static_cast<int>(xml.size()), XML_TRUE) ==
      XML_STATUS_ERROR) {
    EMBER_CHECK(!builder.too_deep, kName, ": ", path, " nests elements deeper than ",
                TreeBuilder::kMaxDepth, " levels");
    EMBER_FAIL(kName, ": ", path,
               " is not well-formed XML: ", XML_ErrorString(XML_GetErrorCode(parser.get())),
               " at line ", XML_GetCurrentLineNumber(parser.get()), ", column ",
               XML_GetCurrentColumnNumber(parser.get()));
  }
  EMBER_CHECK(builder.root, kName, ": ", path, " has no root element");
  return std::move(builder.root);
}

double parse_number(const XmlNode& node, const std::string& path, std::string_view what) {
  const std::string text = detail::strip(node.text);
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  EMBER_CHECK(
      !text.empty() && ec == std::errc() && p == text.data() + text.size() && std::isfinite(v),
      kName, ": ", path, ": <", what, "> is \"", text, "\", not a number");
  return v;
}

int64_t parse_int(const XmlNode& node, const std::string& path, std::string_view what) {
  const double v = parse_number(node, path, what);
  EMBER_CHECK(std::floor(v) == v && std::abs(v) < 9e15, kName, ": ", path, ": <", what, "> is \"",
              detail::strip(node.text), "\", not an integer");
  return static_cast<int64_t>(v);
}

int64_t optional_int(const XmlNode& parent, std::string_view name, const std::string& path) {
  const XmlNode* n = parent.child(name);
  if (!n || detail::strip(n->text).empty()) return 0;
  return parse_int(*n, path, name);
}

VOCBox parse_box(const XmlNode& parent, const std::string& path, std::string_view owner) {
  const XmlNode* box = parent.child("bndbox");
  EMBER_CHECK(box, kName, ": ", path, ": ", owner, " has no <bndbox>");
  VOCBox b;
  const std::pair<const char*, double*> fields[] = {
      {"xmin", &b.xmin}, {"ymin", &b.ymin}, {"xmax", &b.xmax}, {"ymax", &b.ymax}};
  for (const auto& [name, dst] : fields) {
    const XmlNode* n = box->child(name);
    EMBER_CHECK(n, kName, ": ", path, ": the <bndbox> of ", owner, " has no <", name, ">");
    *dst = parse_number(*n, path, name);
  }
  return b;
}

}  // namespace

VOCAnnotation parse_voc_xml(std::string_view xml, const std::string& path) {
  std::unique_ptr<XmlNode> root = parse_xml(xml, path);
  EMBER_CHECK(root->tag == "annotation", kName, ": ", path, ": the root element is <", root->tag,
              ">, expected <annotation>");
  VOCAnnotation a;
  if (const XmlNode* n = root->child("folder")) a.folder = detail::strip(n->text);
  if (const XmlNode* n = root->child("filename")) a.filename = detail::strip(n->text);
  if (const XmlNode* size = root->child("size")) {
    a.width = optional_int(*size, "width", path);
    a.height = optional_int(*size, "height", path);
    a.depth = optional_int(*size, "depth", path);
  }
  a.segmented = optional_int(*root, "segmented", path);
  for (const auto& child : root->children) {
    if (child->tag != "object") continue;
    const XmlNode& o = *child;
    VOCObject obj;
    const XmlNode* name = o.child("name");
    EMBER_CHECK(name, kName, ": ", path, ": object ", a.objects.size(), " has no <name>");
    obj.name = detail::strip(name->text);
    const std::string owner = "object " + std::to_string(a.objects.size()) + " (" + obj.name + ")";
    if (const XmlNode* n = o.child("pose")) obj.pose = detail::strip(n->text);
    obj.truncated = optional_int(o, "truncated", path);
    obj.difficult = optional_int(o, "difficult", path);
    obj.occluded = optional_int(o, "occluded", path);
    obj.bndbox = parse_box(o, path, owner);
    for (const auto& p : o.children) {
      if (p->tag != "part") continue;
      VOCPart part;
      if (const XmlNode* n = p->child("name")) part.name = detail::strip(n->text);
      part.bndbox = parse_box(*p, path, "part " + part.name + " of " + owner);
      obj.parts.push_back(std::move(part));
    }
    a.objects.push_back(std::move(obj));
  }
  return a;
}

VOCDetection::VOCDetection(const std::string& root, VOCDetectionOptions options)
    : options_(std::move(options)) {
  const std::string& year = options_.year;
  const bool valid_year =
      year.size() == 4 && year >= "2007" && year <= "2012" &&
      std::all_of(year.begin(), year.end(), [](char c) { return c >= '0' && c <= '9'; });
  EMBER_CHECK(valid_year, kName, ": year must be one of 2007, 2008, 2009, 2010, 2011, 2012; got \"",
              year, "\"");
  const std::string& set = options_.image_set;
  const bool valid_set =
      set == "train" || set == "trainval" || set == "val" || (set == "test" && year == "2007");
  EMBER_CHECK(valid_set, kName, ": image_set must be one of train, trainval, val",
              year == "2007" ? ", test" : "", " for year ", year, "; got \"", set, "\"");
  EMBER_CHECK(!options_.transforms || (!options_.transform && !options_.target_transform), kName,
              ": only transforms or transform/target_transform can be given, not both");

  const std::string devkit = year == "2011" ? "TrainVal/VOCdevkit" : "VOCdevkit";
  voc_root_ = detail::join_path(detail::join_path(root, devkit), "VOC" + year);
  const std::string split_file = voc_root_ + "/ImageSets/Main/" + set + ".txt";
  EMBER_CHECK(detail::is_directory(voc_root_), kName, ": dataset not found: expected ", voc_root_,
              "/ with JPEGImages/, Annotations/ and ImageSets/Main/", set,
              ".txt (the VOC devkit layout). Ember never downloads.");
  EMBER_CHECK(detail::is_regular_file(split_file), kName, ": image set file ", split_file,
              " not found (expected one image id a line)");
  // One id a line, stripped; blank lines are skipped (torchvision would
  // return an id "" and fail to open ".jpg").
  ids_ = detail::read_nonempty_lines(split_file, kName);
}

std::string VOCDetection::image_path(int64_t index) const {
  detail::check_index(kName, index, size());
  return voc_root_ + "/JPEGImages/" + ids_[static_cast<size_t>(index)] + ".jpg";
}

std::string VOCDetection::annotation_path(int64_t index) const {
  detail::check_index(kName, index, size());
  return voc_root_ + "/Annotations/" + ids_[static_cast<size_t>(index)] + ".xml";
}

VOCTarget VOCDetection::target(int64_t index) const {
  const std::string path = annotation_path(index);
  const std::vector<uint8_t> bytes = detail::read_whole_file(path, kName);
  VOCTarget t;
  t.annotation = parse_voc_xml(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
  const auto n = static_cast<int64_t>(t.annotation.objects.size());
  t.boxes = empty({n, 4}, kFloat32);
  t.labels = empty({n}, kInt64);
  t.difficult = empty({n}, kInt64);
  float* boxes = t.boxes.data_ptr<float>();
  int64_t* labels = t.labels.data_ptr<int64_t>();
  int64_t* difficult = t.difficult.data_ptr<int64_t>();
  const std::vector<std::string>& classes = voc_classes();
  for (int64_t i = 0; i < n; ++i) {
    const VOCObject& o = t.annotation.objects[static_cast<size_t>(i)];
    const auto it = std::find(classes.begin(), classes.end(), o.name);
    EMBER_CHECK(it != classes.end(), kName, ": ", path, ": object ", i, " is a \"", o.name,
                "\", not one of VOC's 20 classes");
    labels[i] = it - classes.begin();
    boxes[4 * i + 0] = static_cast<float>(o.bndbox.xmin);
    boxes[4 * i + 1] = static_cast<float>(o.bndbox.ymin);
    boxes[4 * i + 2] = static_cast<float>(o.bndbox.xmax);
    boxes[4 * i + 3] = static_cast<float>(o.bndbox.ymax);
    difficult[i] = o.difficult;
  }
  return t;
}

VOCSample VOCDetection::get(int64_t index) {
  const std::string path = image_path(index);
  Tensor image;
  try {
    image = io::read_image(path, io::ImageReadMode::RGB);
  } catch (const Error& e) {
    EMBER_FAIL(kName, ": cannot load ", path, ": ", e.what());
  }
  VOCTarget t = target(index);
  if (options_.transforms) return options_.transforms(std::move(image), std::move(t));
  if (options_.transform) image = options_.transform(image);
  if (options_.target_transform) t = options_.target_transform(std::move(t));
  return {std::move(image), std::move(t)};
}

}  // namespace ember::datasets
