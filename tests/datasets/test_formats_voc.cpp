// VOCDetection against torchvision 0.14's VOCDetection (its XML dict) on the
// committed VOC2012 tree, and bad layouts and annotations made here.
#include <charconv>

#include <ember/datasets/voc.h>

#include "formats_test_util.h"

namespace ember::datasets {
namespace formats_voc_test {

using ember::testing::at;
using ember::testing::copy_tree;
using ember::testing::error_of;
using ember::testing::formats_dir;
using ember::testing::formats_expected;
using ember::testing::formats_npy;
using ember::testing::TempDir;
using ember::testing::tensors_equal;
using ember::testing::write_bytes;
using Value = ember::IValue;

double num(const Value& v) {
  double d = 0;
  std::from_chars(v.to_string().data(), v.to_string().data() + v.to_string().size(), d);
  return d;
}

// torchvision's dict holds one child as a value and repeated children as a list.
std::vector<const Value*> as_list(const Value* v) {
  std::vector<const Value*> out;
  if (!v) return out;
  if (v->is_list())
    for (const Value& e : v->to_list()) out.push_back(&e);
  else
    out.push_back(v);
  return out;
}

void expect_box(const VOCBox& b, const Value& box) {
  EXPECT_EQ(b.xmin, num(at(box, "xmin")));
  EXPECT_EQ(b.ymin, num(at(box, "ymin")));
  EXPECT_EQ(b.xmax, num(at(box, "xmax")));
  EXPECT_EQ(b.ymax, num(at(box, "ymax")));
}

TEST(FormatsVOC, MatchesTorchvision) {
  const auto& exp = at(formats_expected(), "voc");
  for (const char* set : {"train", "val"}) {
    SCOPED_TRACE(set);
    VOCDetection ds(formats_dir() + "/voc", {.image_set = set});
    const auto& samples = at(exp, set).to_list();
    ASSERT_EQ(ds.size(), static_cast<int64_t>(samples.size()));
    for (int64_t i = 0; i < ds.size(); ++i) {
      SCOPED_TRACE(i);
      auto [image, target] = ds.get(i);
      EXPECT_TRUE(
          tensors_equal(image, formats_npy(std::string("voc_") + set + "_" + std::to_string(i))));
      const Value& a = at(samples[static_cast<size_t>(i)], "annotation");
      const VOCAnnotation& got = target.annotation;
      EXPECT_EQ(got.filename, at(a, "filename").to_string());
      EXPECT_EQ(got.folder, a.find("folder") ? a.find("folder")->to_string() : "");
      EXPECT_EQ(got.width, static_cast<int64_t>(num(at(at(a, "size"), "width"))));
      EXPECT_EQ(got.height, static_cast<int64_t>(num(at(at(a, "size"), "height"))));
      EXPECT_EQ(got.depth, static_cast<int64_t>(num(at(at(a, "size"), "depth"))));
      EXPECT_EQ(got.segmented, static_cast<int64_t>(num(at(a, "segmented"))));
      // torchvision wraps the objects of <annotation> in a list (of one list
      // when there are several).
      std::vector<const Value*> objects = as_list(&at(a, "object"));
      if (objects.size() == 1 && objects[0]->is_list())
        objects = as_list(objects[0]);
      ASSERT_EQ(got.objects.size(), objects.size());
      const auto n = static_cast<int64_t>(objects.size());
      EXPECT_EQ(target.boxes.sizes(), IntArrayRef({n, 4}));
      EXPECT_EQ(target.labels.sizes(), IntArrayRef({n}));
      for (int64_t k = 0; k < n; ++k) {
        const Value& o = *objects[static_cast<size_t>(k)];
        const VOCObject& g = got.objects[static_cast<size_t>(k)];
        EXPECT_EQ(g.name, at(o, "name").to_string());
        EXPECT_EQ(g.pose, o.find("pose") ? o.find("pose")->to_string() : "");
        EXPECT_EQ(g.truncated,
                  o.find("truncated") ? static_cast<int64_t>(num(*o.find("truncated"))) : 0);
        EXPECT_EQ(g.difficult,
                  o.find("difficult") ? static_cast<int64_t>(num(*o.find("difficult"))) : 0);
        EXPECT_EQ(g.occluded,
                  o.find("occluded") ? static_cast<int64_t>(num(*o.find("occluded"))) : 0);
        expect_box(g.bndbox, at(o, "bndbox"));
        const std::vector<const Value*> parts = as_list(o.find("part"));
        ASSERT_EQ(g.parts.size(), parts.size());
        for (size_t p = 0; p < parts.size(); ++p) {
          EXPECT_EQ(g.parts[p].name, at(*parts[p], "name").to_string());
          expect_box(g.parts[p].bndbox, at(*parts[p], "bndbox"));
        }
        const auto& classes = voc_classes();
        EXPECT_EQ(classes[static_cast<size_t>(target.labels[k].item<int64_t>())], g.name);
        EXPECT_EQ(target.boxes[k][0].item<float>(), static_cast<float>(g.bndbox.xmin));
        EXPECT_EQ(target.boxes[k][3].item<float>(), static_cast<float>(g.bndbox.ymax));
        EXPECT_EQ(target.difficult[k].item<int64_t>(), g.difficult);
      }
    }
  }
  VOCDetection train(formats_dir() + "/voc");
  EXPECT_EQ(train.ids(), (std::vector<std::string>{"2008_000001", "2009_000003"}));
  EXPECT_EQ(train.image_path(1),
            formats_dir() + "/voc/VOCdevkit/VOC2012/JPEGImages/2009_000003.jpg");
  EXPECT_EQ(train.annotation_path(0),
            formats_dir() + "/voc/VOCdevkit/VOC2012/Annotations/2008_000001.xml");
}

TEST(FormatsVOC, ClassesAndTransforms) {
  ASSERT_EQ(voc_classes().size(), 20u);
  EXPECT_EQ(voc_classes()[0], "aeroplane");
  EXPECT_EQ(voc_classes()[14], "person");
  EXPECT_EQ(voc_classes()[19], "tvmonitor");
  EXPECT_TRUE(std::is_sorted(voc_classes().begin(), voc_classes().end()));
  VOCDetection ds(formats_dir() + "/voc", {.transforms = [](Tensor image, VOCTarget t) {
                    t.annotation.objects.clear();
                    return VOCSample{image.narrow(0, 0, 1), std::move(t)};
                  }});
  auto [image, target] = ds.get(0);
  EXPECT_EQ(image.size(0), 1);
  EXPECT_TRUE(target.annotation.objects.empty());
  EXPECT_EQ(target.labels.size(0), 2);  // the tensors were made before the transform
  EXPECT_EMBER_ERROR(
      VOCDetection(formats_dir() + "/voc", {.target_transform = [](VOCTarget t) { return t; },
                                            .transforms =
                                                [](Tensor i, VOCTarget t) {
                                                  return VOCSample{i, t};
                                                }}),
      "only transforms or transform/target_transform");
}

TEST(FormatsVOC, LayoutErrors) {
  TempDir tmp;
  EXPECT_EMBER_ERROR(
      VOCDetection(tmp.path()), "VOCDetection: dataset not found",
      "VOCdevkit/VOC2012/ with JPEGImages/, Annotations/ and ImageSets/Main/train.txt",
      "never downloads");
  EXPECT_EMBER_ERROR(VOCDetection(tmp.path(), {.year = "2011"}), "TrainVal/VOCdevkit/VOC2011");
  EXPECT_EMBER_ERROR(VOCDetection(tmp.path(), {.year = "2013"}), "year must be one of 2007",
                     "\"2013\"");
  EXPECT_EMBER_ERROR(VOCDetection(tmp.path(), {.image_set = "test"}),
                     "image_set must be one of train, trainval, val for year 2012", "\"test\"");
  std::filesystem::create_directories(tmp / "VOCdevkit/VOC2007");
  EXPECT_EMBER_ERROR(VOCDetection(tmp.path(), {.year = "2007", .image_set = "test"}),
                     "image set file", "VOC2007/ImageSets/Main/test.txt not found");
  // VOC 2011's extra folder, and blank lines in the image set.
  write_bytes(tmp / "TrainVal/VOCdevkit/VOC2011/ImageSets/Main/val.txt", "a\n\n  b \r\n");
  VOCDetection ds(tmp.path(), {.year = "2011", .image_set = "val"});
  EXPECT_EQ(ds.ids(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EMBER_ERROR(ds.get(0), "VOCDetection: cannot load",
                     "TrainVal/VOCdevkit/VOC2011/JPEGImages/a.jpg");
  EXPECT_EMBER_ERROR(ds.target(1), "cannot open", "VOC2011/Annotations/b.xml");
  EXPECT_EMBER_ERROR(ds.get(2), "VOCDetection: index 2 is out of range");
}

std::string xml_error(const std::string& xml) {
  return error_of([&] { parse_voc_xml(xml, "x.xml"); });
}

TEST(FormatsVOC, BadAnnotations) {
  auto expect_has = [](const std::string& msg, std::initializer_list<const char*> parts) {
    EXPECT_FALSE(msg.empty());
    for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << " lacks " << p;
  };
  expect_has(xml_error("<annotation><object></annotation>"),
             {"VOCDetection: x.xml is not well-formed XML", "mismatched tag", "line 1"});
  expect_has(xml_error(""), {"x.xml is not well-formed XML"});
  expect_has(xml_error("<doc/>"), {"the root element is <doc>, expected <annotation>"});
  expect_has(xml_error("<annotation><object><bndbox/></object></annotation>"),
             {"object 0 has no <name>"});
  expect_has(xml_error("<annotation><object><name>dog</name></object></annotation>"),
             {"object 0 (dog) has no <bndbox>"});
  expect_has(xml_error("<annotation><object><name>dog</name><bndbox><xmin>1</xmin><ymin>1</ymin>"
                       "<xmax>2</xmax></bndbox></object></annotation>"),
             {"the <bndbox> of object 0 (dog) has no <ymax>"});
  expect_has(xml_error("<annotation><object><name>dog</name><bndbox><xmin>1</xmin><ymin>1</ymin>"
                       "<xmax>two</xmax><ymax>2</ymax></bndbox></object></annotation>"),
             {"<xmax> is \"two\", not a number"});
  expect_has(xml_error("<annotation><size><width>5.5</width></size></annotation>"),
             {"<width> is \"5.5\", not an integer"});
  expect_has(xml_error(std::string(10000, ' ') + "<annotation>" +
                       [] {
                         std::string s;
                         for (int i = 0; i < 1000; ++i) s += "<a>";
                         return s;
                       }()),
             {"nests elements deeper than 64 levels"});
  // Entities expanding without bound are refused by expat.
  std::string bomb = "<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY a \"aaaaaaaaaa\">";
  for (char c = 'b'; c <= 'j'; ++c) {
    std::string body;
    for (int k = 0; k < 10; ++k) {
      body += '&';
      body += static_cast<char>(c - 1);
      body += ';';
    }
    bomb += "<!ENTITY ";
    bomb += c;
    bomb += " \"" + body + "\">";
  }
  bomb += "]><annotation><filename>&j;</filename></annotation>";
  expect_has(xml_error(bomb), {"x.xml is not well-formed XML"});

  // Any name parses; labels need one of the 20 classes.
  VOCAnnotation a = parse_voc_xml(
      "<annotation><object><name>unicorn</name><bndbox><xmin>1</xmin><ymin>2</ymin><xmax>3</xmax>"
      "<ymax>4</ymax></bndbox></object></annotation>",
      "u.xml");
  EXPECT_EQ(a.objects[0].name, "unicorn");
  TempDir tmp;
  copy_tree(formats_dir() + "/voc", tmp.path());
  write_bytes(
      tmp / "VOCdevkit/VOC2012/Annotations/2009_000003.xml",
      "<annotation><object><name>unicorn</name><bndbox><xmin>1</xmin><ymin>2</ymin><xmax>3</xmax>"
      "<ymax>4</ymax></bndbox></object></annotation>");
  VOCDetection ds(tmp.path());
  EXPECT_EMBER_ERROR(ds.get(1),
                     "2009_000003.xml: object 0 is a \"unicorn\", not one of VOC's 20 classes");
}

}  // namespace ember::datasets

}  // namespace formats_voc_test
