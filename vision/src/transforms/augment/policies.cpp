// AutoAugment's learned policies: torchvision 0.14's AutoAugment._get_policies
// (each sub-policy: two (op, probability, magnitude bin) triples; the tables
// are compared with torchvision's in tests/vision/test_autoaugment.cpp).
#include <ember/core/error.h>

#include "ember/vision/transforms/autoaugment.h"

namespace ember::vision::transforms {
namespace {

using A = functional::AugmentOp;
constexpr std::nullopt_t none = std::nullopt;

const std::vector<AutoAugmentSubPolicy> kImageNet = {
    {{{A::Posterize, 0.4, 8}, {A::Rotate, 0.6, 9}}},
    {{{A::Solarize, 0.6, 5}, {A::AutoContrast, 0.6, none}}},
    {{{A::Equalize, 0.8, none}, {A::Equalize, 0.6, none}}},
    {{{A::Posterize, 0.6, 7}, {A::Posterize, 0.6, 6}}},
    {{{A::Equalize, 0.4, none}, {A::Solarize, 0.2, 4}}},
    {{{A::Equalize, 0.4, none}, {A::Rotate, 0.8, 8}}},
    {{{A::Solarize, 0.6, 3}, {A::Equalize, 0.6, none}}},
    {{{A::Posterize, 0.8, 5}, {A::Equalize, 1.0, none}}},
    {{{A::Rotate, 0.2, 3}, {A::Solarize, 0.6, 8}}},
    {{{A::Equalize, 0.6, none}, {A::Posterize, 0.4, 6}}},
    {{{A::Rotate, 0.8, 8}, {A::Color, 0.4, 0}}},
    {{{A::Rotate, 0.4, 9}, {A::Equalize, 0.6, none}}},
    {{{A::Equalize, 0.0, none}, {A::Equalize, 0.8, none}}},
    {{{A::Invert, 0.6, none}, {A::Equalize, 1.0, none}}},
    {{{A::Color, 0.6, 4}, {A::Contrast, 1.0, 8}}},
    {{{A::Rotate, 0.8, 8}, {A::Color, 1.0, 2}}},
    {{{A::Color, 0.8, 8}, {A::Solarize, 0.8, 7}}},
    {{{A::Sharpness, 0.4, 7}, {A::Invert, 0.6, none}}},
    {{{A::ShearX, 0.6, 5}, {A::Equalize, 1.0, none}}},
    {{{A::Color, 0.4, 0}, {A::Equalize, 0.6, none}}},
    {{{A::Equalize, 0.4, none}, {A::Solarize, 0.2, 4}}},
    {{{A::Solarize, 0.6, 5}, {A::AutoContrast, 0.6, none}}},
    {{{A::Invert, 0.6, none}, {A::Equalize, 1.0, none}}},
    {{{A::Color, 0.6, 4}, {A::Contrast, 1.0, 8}}},
    {{{A::Equalize, 0.8, none}, {A::Equalize, 0.6, none}}},
};
const std::vector<AutoAugmentSubPolicy> kCifar10 = {
    {{{A::Invert, 0.1, none}, {A::Contrast, 0.2, 6}}},
    {{{A::Rotate, 0.7, 2}, {A::TranslateX, 0.3, 9}}},
    {{{A::Sharpness, 0.8, 1}, {A::Sharpness, 0.9, 3}}},
    {{{A::ShearY, 0.5, 8}, {A::TranslateY, 0.7, 9}}},
    {{{A::AutoContrast, 0.5, none}, {A::Equalize, 0.9, none}}},
    {{{A::ShearY, 0.2, 7}, {A::Posterize, 0.3, 7}}},
    {{{A::Color, 0.4, 3}, {A::Brightness, 0.6, 7}}},
    {{{A::Sharpness, 0.3, 9}, {A::Brightness, 0.7, 9}}},
    {{{A::Equalize, 0.6, none}, {A::Equalize, 0.5, none}}},
    {{{A::Contrast, 0.6, 7}, {A::Sharpness, 0.6, 5}}},
    {{{A::Color, 0.7, 7}, {A::TranslateX, 0.5, 8}}},
    {{{A::Equalize, 0.3, none}, {A::AutoContrast, 0.4, none}}},
    {{{A::TranslateY, 0.4, 3}, {A::Sharpness, 0.2, 6}}},
    {{{A::Brightness, 0.9, 6}, {A::Color, 0.2, 8}}},
    {{{A::Solarize, 0.5, 2}, {A::Invert, 0.0, none}}},
    {{{A::Equalize, 0.2, none}, {A::AutoContrast, 0.6, none}}},
    {{{A::Equalize, 0.2, none}, {A::Equalize, 0.6, none}}},
    {{{A::Color, 0.9, 9}, {A::Equalize, 0.6, none}}},
    {{{A::AutoContrast, 0.8, none}, {A::Solarize, 0.2, 8}}},
    {{{A::Brightness, 0.1, 3}, {A::Color, 0.7, 0}}},
    {{{A::Solarize, 0.4, 5}, {A::AutoContrast, 0.9, none}}},
    {{{A::TranslateY, 0.9, 9}, {A::TranslateY, 0.7, 9}}},
    {{{A::AutoContrast, 0.9, none}, {A::Solarize, 0.8, 3}}},
    {{{A::Equalize, 0.8, none}, {A::Invert, 0.1, none}}},
    {{{A::TranslateY, 0.7, 9}, {A::AutoContrast, 0.9, none}}},
};
const std::vector<AutoAugmentSubPolicy> kSvhn = {
    {{{A::ShearX, 0.9, 4}, {A::Invert, 0.2, none}}},
    {{{A::ShearY, 0.9, 8}, {A::Invert, 0.7, none}}},
    {{{A::Equalize, 0.6, none}, {A::Solarize, 0.6, 6}}},
    {{{A::Invert, 0.9, none}, {A::Equalize, 0.6, none}}},
    {{{A::Equalize, 0.6, none}, {A::Rotate, 0.9, 3}}},
    {{{A::ShearX, 0.9, 4}, {A::AutoContrast, 0.8, none}}},
    {{{A::ShearY, 0.9, 8}, {A::Invert, 0.4, none}}},
    {{{A::ShearY, 0.9, 5}, {A::Solarize, 0.2, 6}}},
    {{{A::Invert, 0.9, none}, {A::AutoContrast, 0.8, none}}},
    {{{A::Equalize, 0.6, none}, {A::Rotate, 0.9, 3}}},
    {{{A::ShearX, 0.9, 4}, {A::Solarize, 0.3, 3}}},
    {{{A::ShearY, 0.8, 8}, {A::Invert, 0.7, none}}},
    {{{A::Equalize, 0.9, none}, {A::TranslateY, 0.6, 6}}},
    {{{A::Invert, 0.9, none}, {A::Equalize, 0.6, none}}},
    {{{A::Contrast, 0.3, 3}, {A::Rotate, 0.8, 4}}},
    {{{A::Invert, 0.8, none}, {A::TranslateY, 0.0, 2}}},
    {{{A::ShearY, 0.7, 6}, {A::Solarize, 0.4, 8}}},
    {{{A::Invert, 0.6, none}, {A::Rotate, 0.8, 4}}},
    {{{A::ShearY, 0.3, 7}, {A::TranslateX, 0.9, 3}}},
    {{{A::ShearX, 0.1, 6}, {A::Invert, 0.6, none}}},
    {{{A::Solarize, 0.7, 2}, {A::TranslateY, 0.6, 7}}},
    {{{A::ShearY, 0.8, 4}, {A::Invert, 0.8, none}}},
    {{{A::ShearX, 0.7, 9}, {A::TranslateY, 0.8, 3}}},
    {{{A::ShearY, 0.8, 5}, {A::AutoContrast, 0.7, none}}},
    {{{A::ShearX, 0.7, 2}, {A::Invert, 0.1, none}}},
};

}  // namespace

const char* autoaugment_policy_name(AutoAugmentPolicy policy) {
  switch (policy) {
    case AutoAugmentPolicy::IMAGENET: return "imagenet";
    case AutoAugmentPolicy::CIFAR10: return "cifar10";
    case AutoAugmentPolicy::SVHN: return "svhn";
  }
  EMBER_FAIL("AutoAugment: the provided policy ", static_cast<int>(policy), " is not recognized");
}

AutoAugmentPolicy autoaugment_policy_from_name(const std::string& name, const std::string& who) {
  for (auto p : {AutoAugmentPolicy::IMAGENET, AutoAugmentPolicy::CIFAR10, AutoAugmentPolicy::SVHN})
    if (name == autoaugment_policy_name(p)) return p;
  EMBER_FAIL(who, ": the provided policy '", name, "' is not recognized (imagenet, cifar10 or svhn)");
}

const std::vector<AutoAugmentSubPolicy>& autoaugment_policies(AutoAugmentPolicy policy) {
  switch (policy) {
    case AutoAugmentPolicy::IMAGENET: return kImageNet;
    case AutoAugmentPolicy::CIFAR10: return kCifar10;
    case AutoAugmentPolicy::SVHN: return kSvhn;
  }
  EMBER_FAIL("AutoAugment: the provided policy ", static_cast<int>(policy), " is not recognized");
}

}  // namespace ember::vision::transforms
