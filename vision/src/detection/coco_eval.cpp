#include "ember/vision/detection/coco_eval.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include <ember/core/error.h>
#include <ember/io/file.h>
#include <ember/ops/factories.h>
#include <ember/serialize/json_cursor.h>

namespace ember::vision::detection {

// Note [COCOeval's rules]
// ~~~~~~~~~~~~~~~~~~~~~~~
// pycocotools' COCOeval (bbox), step by step, with its quirks kept:
// - Per (image, category): the detections sorted by score, highest first,
//   stably (numpy's mergesort: ties keep file order), cut to maxDets[-1]; the
//   ground truth with the non-ignored first (stable). A ground-truth box is
//   ignored when it is a crowd or its "area" field lies outside the area range.
// - IoU of boxes (maskUtils.iou on xywh): intersection over union, where a
//   crowd ground truth's union is the detection's own area; 0 when the
//   boxes only touch. segm: the same on RLE masks (mask::iou, Note [COCO
//   RLE]); a ground truth's polygons are rasterized with its image's size, a
//   detection without a mask is its box as a polygon (loadRes), and a
//   detection's area (its area range) is the mask's when the record had no
//   box, else width * height (loadRes).
// - Matching, per IoU threshold t, detection by detection in score order:
//   the best IoU >= min(t, 1 - 1e-10) among ground truths not yet matched
//   (crowds match any number of times); once a detection holds a regular
//   ground truth it never moves to an ignored one (the ignored sort last, so
//   the scan stops there). A detection matched to an ignored ground truth is
//   ignored; an unmatched detection whose area (w * h) is outside the range is
//   ignored too.
// - Accumulation, per category, area range and maxDets: the detections of all
//   images (each image's first maxDets) sorted stably by score; cumulative
//   true and false positives over the non-ignored ones; recall = tp / (number
//   of non-ignored ground truths), precision = tp / (tp + fp + eps), made
//   monotone from the right, read at the first detection reaching each recall
//   threshold (searchsorted, left) and 0 past the last. A category without
//   non-ignored ground truth in the range stays -1 (its detections count nowhere).
// - summarize(): the mean of the entries > -1 of the slice; -1 when none.
//
// Note [COCOeval's keypoints]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// iouType "keypoints" is the same evaluate/accumulate with three changes:
// - The similarity is computeOks's object keypoint similarity, not IoU: for a
//   ground truth with k1 > 0 labeled keypoints (v > 0), the mean over those
//   of exp(-e), e = (dx^2 + dy^2) / (2 sigma)^2 / (area + eps) / 2, with the
//   ground truth's "area" field; with none labeled, the mean over all K of
//   exp(-e) where dx, dy are the detection keypoint's distance outside the
//   ground-truth box grown by its size on each side ([x - w, x + 2w]).
//   Crowds are not special in OKS (they still match any number of times).
// - A ground truth with num_keypoints == 0 is ignored (as a crowd).
// - A results record without a "bbox" gets the area of its keypoints' tight
//   box (loadRes); with one, width * height.
// setKpParams: maxDets [20], area ranges all/medium/large; _summarizeKps's
// ten stats are AP and AR at 0.5:0.95, 0.5, 0.75 and medium/large, all at
// maxDets 20.

namespace {

// np.linspace(start, stop, num) with endpoint: start + i * step, the last
// exactly stop.
std::vector<double> linspace(double start, double stop, int64_t num) {
  std::vector<double> v(num);
  const double step = (stop - start) / static_cast<double>(num - 1);
  for (int64_t i = 0; i < num; ++i) v[i] = static_cast<double>(i) * step + start;
  v[num - 1] = stop;
  return v;
}

CocoEvalParams filled(const CocoEvalParams& in, const CocoGroundTruth& gt) {
  CocoEvalParams p = in;
  if (p.image_ids.empty()) p.image_ids = gt.image_ids;
  if (p.category_ids.empty()) p.category_ids = gt.category_ids;
  auto sort_unique = [](std::vector<int64_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  sort_unique(p.image_ids);
  sort_unique(p.category_ids);
  if (p.iou_type == "keypoints") {
    if (p.kpt_oks_sigmas.empty()) p.kpt_oks_sigmas = coco_keypoint_oks_sigmas();
    for (double s : p.kpt_oks_sigmas)
      EMBER_CHECK(s > 0 && std::isfinite(s), "coco_evaluate: kpt_oks_sigmas must be positive, got ", s);
  }
  // np.linspace(.5, 0.95, int(np.round((0.95 - .5) / .05)) + 1) and (0, 1, 101).
  if (p.iou_thresholds.empty()) p.iou_thresholds = linspace(0.5, 0.95, 10);
  if (p.recall_thresholds.empty()) p.recall_thresholds = linspace(0.0, 1.0, 101);
  EMBER_CHECK(!p.max_dets.empty(), "coco_evaluate: max_dets is empty");
  for (int64_t m : p.max_dets) EMBER_CHECK(m > 0, "coco_evaluate: max_dets must be positive, got ", m);
  EMBER_CHECK(!p.area_ranges.empty() && p.area_ranges.size() == p.area_labels.size(),
              "coco_evaluate: area_ranges and area_labels must be non-empty and of one length, got ",
              p.area_ranges.size(), " and ", p.area_labels.size());
  return p;
}

struct Det {
  int64_t id;  // 1-based, in result order (loadRes)
  std::array<double, 4> bbox;
  double area;
  double score;
  const mask::Rle* rle;  // segm: the detection's mask
  const std::vector<double>* keypoints;  // keypoints: x, y, v triples
};

// computeOks for one detection and one ground truth (Note [COCOeval's
// keypoints]); vars[j] = (2 sigma_j)^2.
double keypoint_oks(const std::vector<double>& d, const CocoGroundTruthBox& g, const std::vector<double>& vars) {
  const size_t K = vars.size();
  const std::vector<double>& kg = g.keypoints;
  size_t labeled = 0;
  for (size_t j = 0; j < K; ++j) labeled += kg[3 * j + 2] > 0;
  const auto& bb = g.bbox;
  const double x0 = bb[0] - bb[2], x1 = bb[0] + bb[2] * 2;
  const double y0 = bb[1] - bb[3], y1 = bb[1] + bb[3] * 2;
  const double eps = std::nextafter(1.0, 2.0) - 1.0;  // np.spacing(1)
  double sum = 0;
  size_t n = 0;
  for (size_t j = 0; j < K; ++j) {
    const double xd = d[3 * j], yd = d[3 * j + 1];
    double dx, dy;
    if (labeled > 0) {
      if (!(kg[3 * j + 2] > 0)) continue;
      dx = xd - kg[3 * j], dy = yd - kg[3 * j + 1];
    } else {
      dx = std::fmax(0.0, x0 - xd) + std::fmax(0.0, xd - x1);
      dy = std::fmax(0.0, y0 - yd) + std::fmax(0.0, yd - y1);
    }
    const double e = (dx * dx + dy * dy) / vars[j] / (g.area + eps) / 2;
    sum += std::exp(-e);
    ++n;
  }
  return sum / static_cast<double>(n);
}

// loadRes's box of a keypoints result: min/max of its x and y ((0, 0, 0, 0)
// without keypoints).
std::array<double, 4> keypoint_box(const std::vector<double>& kp) {
  if (kp.size() < 3) return {0, 0, 0, 0};
  double x0 = kp[0], x1 = kp[0], y0 = kp[1], y1 = kp[1];
  for (size_t j = 3; j + 1 < kp.size(); j += 3) {
    x0 = std::fmin(x0, kp[j]), x1 = std::fmax(x1, kp[j]);
    y0 = std::fmin(y0, kp[j + 1]), y1 = std::fmax(y1, kp[j + 1]);
  }
  return {x0, y0, x1 - x0, y1 - y0};
}

// maskUtils.iou for boxes.
double box_iou(const std::array<double, 4>& d, const std::array<double, 4>& g, bool crowd) {
  const double w = std::fmin(d[2] + d[0], g[2] + g[0]) - std::fmax(d[0], g[0]);
  if (w <= 0) return 0;
  const double h = std::fmin(d[3] + d[1], g[3] + g[1]) - std::fmax(d[1], g[1]);
  if (h <= 0) return 0;
  const double i = w * h;
  const double da = d[2] * d[3];
  const double u = crowd ? da : da + g[2] * g[3] - i;
  return i / u;
}

// evaluateImg's record of one (image, category, area range).
struct ImageEval {
  std::vector<double> scores;    // D, in score order
  std::vector<uint8_t> matched;  // T x D: matched to some ground truth
  std::vector<uint8_t> ignored;  // T x D
  int64_t num_regular_gt = 0;    // ground truths not ignored
};

// (height, width) of the ground truth's images, for rasterizing box polygons.
std::unordered_map<int64_t, std::array<int64_t, 2>> image_sizes(const CocoGroundTruth& gt) {
  std::unordered_map<int64_t, std::array<int64_t, 2>> sizes;
  for (size_t i = 0; i < gt.image_ids.size(); ++i)
    sizes.emplace(gt.image_ids[i], i < gt.image_sizes.size() ? gt.image_sizes[i] : std::array<int64_t, 2>{0, 0});
  return sizes;
}

std::vector<size_t> by_score(const std::vector<const Det*>& dets) {
  std::vector<size_t> order(dets.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return dets[a]->score > dets[b]->score; });
  return order;
}

}  // namespace

const std::vector<double>& coco_keypoint_oks_sigmas() {
  // pycocotools: np.array([.26, .25, .25, .35, .35, .79, .79, .72, .72, .62,
  // .62, 1.07, 1.07, .87, .87, .89, .89]) / 10.0, divided as numpy does.
  static const std::vector<double> sigmas = [] {
    std::vector<double> v{.26, .25, .25, .35, .35, .79, .79, .72, .72, .62, .62, 1.07, 1.07, .87, .87, .89, .89};
    for (double& x : v) x /= 10.0;
    return v;
  }();
  return sigmas;
}

CocoEvalParams::CocoEvalParams(const std::string& type) : iou_type(type) {
  if (type == "keypoints") {
    // setKpParams.
    max_dets = {20};
    area_ranges = {{0.0, 1e10}, {32.0 * 32.0, 96.0 * 96.0}, {96.0 * 96.0, 1e10}};
    area_labels = {"all", "medium", "large"};
    kpt_oks_sigmas = coco_keypoint_oks_sigmas();
  }
}

CocoEvalResult coco_evaluate(const CocoGroundTruth& gt, const std::vector<CocoDetectionResult>& detections,
                             const CocoEvalParams& params) {
  CocoEvalResult result;
  const CocoEvalParams p = filled(params, gt);
  result.params = p;
  const std::set<int64_t> gt_images(gt.image_ids.begin(), gt.image_ids.end());
  EMBER_CHECK(p.iou_type == "bbox" || p.iou_type == "segm" || p.iou_type == "keypoints",
              "coco_evaluate: iou_type must be \"bbox\", \"segm\" or \"keypoints\", got \"", p.iou_type, "\"");
  const bool segm = p.iou_type == "segm";
  const bool kps = p.iou_type == "keypoints";
  std::vector<double> kp_vars;
  for (double s : p.kpt_oks_sigmas) kp_vars.push_back((s * 2) * (s * 2));
  for (const auto& d : detections)
    EMBER_CHECK(gt_images.count(d.image_id), "coco_evaluate: a detection has image_id ", d.image_id,
                ", which is not an image of the ground truth (pycocotools: \"Results do not correspond to "
                "current coco set\")");
  // Annotations of images the file does not list are never evaluated (as
  // pycocotools: it evaluates the listed images only).

  // With use_cats off every category is one, as COCOeval's catIds = [-1].
  const std::vector<int64_t> cat_keys = p.use_cats ? p.category_ids : std::vector<int64_t>{-1};
  const int64_t T = static_cast<int64_t>(p.iou_thresholds.size());
  const int64_t R = static_cast<int64_t>(p.recall_thresholds.size());
  const int64_t K = static_cast<int64_t>(cat_keys.size());
  const int64_t A = static_cast<int64_t>(p.area_ranges.size());
  const int64_t M = static_cast<int64_t>(p.max_dets.size());
  const int64_t I = static_cast<int64_t>(p.image_ids.size());
  const int64_t max_det_last = p.max_dets.back();

  // Buckets per (category, image), in the order COCOeval sees them: ground
  // truth in file order (pycocotools loads it image by image, each image's
  // in file order: the per-(image, category) order is the same), detections
  // in result order.
  std::unordered_map<int64_t, int64_t> image_index, cat_index;
  for (int64_t i = 0; i < I; ++i) image_index.emplace(p.image_ids[i], i);
  for (int64_t k = 0; k < K; ++k) cat_index.emplace(cat_keys[k], k);
  auto bucket_of = [&](int64_t image_id, int64_t category_id) -> int64_t {
    auto ii = image_index.find(image_id);
    auto kk = cat_index.find(p.use_cats ? category_id : int64_t{-1});
    if (ii == image_index.end() || kk == cat_index.end()) return -1;
    return kk->second * I + ii->second;
  };
  std::vector<std::vector<const CocoGroundTruthBox*>> gts(static_cast<size_t>(K * I));
  std::vector<std::vector<const Det*>> dts(static_cast<size_t>(K * I));
  for (const auto& a : gt.annotations)
    if (const int64_t b = bucket_of(a.image_id, a.category_id); b >= 0) gts[b].push_back(&a);
  if (segm)
    for (const auto& a : gt.annotations)
      EMBER_CHECK(bucket_of(a.image_id, a.category_id) < 0 || a.has_segmentation, "coco_evaluate: iou_type "
                  "\"segm\" needs the segmentation of every annotation, and annotation ", a.id, " (image ",
                  a.image_id, ") has none (or has polygons but its image record no height and width)");
  if (kps) {
    const size_t want = 3 * kp_vars.size();
    for (const auto& a : gt.annotations)
      EMBER_CHECK(bucket_of(a.image_id, a.category_id) < 0 || a.keypoints.size() == want, "coco_evaluate: iou_type "
                  "\"keypoints\" needs ", want / 3, " keypoints (", want, " numbers, as kpt_oks_sigmas) in every "
                  "annotation, and annotation ", a.id, " (image ", a.image_id, ") has ", a.keypoints.size(), " numbers");
    for (size_t i = 0; i < detections.size(); ++i)
      EMBER_CHECK(bucket_of(detections[i].image_id, detections[i].category_id) < 0 ||
                      detections[i].keypoints.size() == want,
                  "coco_evaluate: iou_type \"keypoints\" needs ", want / 3, " keypoints (", want,
                  " numbers) in every detection, and detection ", i, " (image ", detections[i].image_id, ") has ",
                  detections[i].keypoints.size(), " numbers");
  }
  std::vector<Det> det_records;
  det_records.reserve(detections.size());
  // segm: a detection without a mask is its box as a polygon (loadRes).
  std::vector<mask::Rle> box_masks(segm ? detections.size() : 0);
  const auto sizes = segm ? image_sizes(gt) : std::unordered_map<int64_t, std::array<int64_t, 2>>{};
  for (size_t i = 0; i < detections.size(); ++i) {
    const auto& d = detections[i];
    const double area = d.area >= 0 ? d.area : d.bbox[2] * d.bbox[3];
    const mask::Rle* rle = nullptr;
    if (segm && d.has_segmentation) {
      rle = &d.segmentation;
    } else if (segm && bucket_of(d.image_id, d.category_id) >= 0) {
      const auto size = sizes.at(d.image_id);  // a ground-truth image (checked above)
      EMBER_CHECK(size[0] > 0 && size[1] > 0, "coco_evaluate: image ", d.image_id,
                  " has no height and width, which segm evaluation needs to rasterize a box-only detection");
      const auto& b = d.bbox;
      box_masks[i] = mask::from_polygon({b[0], b[1], b[0], b[1] + b[3], b[0] + b[2], b[1] + b[3], b[0] + b[2], b[1]},
                                        size[0], size[1]);
      rle = &box_masks[i];
    }
    det_records.push_back({static_cast<int64_t>(i) + 1, d.bbox, area, d.score, rle, &d.keypoints});
  }
  for (size_t i = 0; i < detections.size(); ++i)
    if (const int64_t b = bucket_of(detections[i].image_id, detections[i].category_id); b >= 0)
      dts[b].push_back(&det_records[i]);

  // evaluate(): one ImageEval (or none) per category, area range, image.
  std::vector<std::optional<ImageEval>> evals(static_cast<size_t>(K * A * I));
  std::vector<double> ious_all, ious;
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t i = 0; i < I; ++i) {
      const auto& g_all = gts[k * I + i];
      const auto& d_all = dts[k * I + i];
      if (g_all.empty() && d_all.empty()) continue;
      // computeIoU: detections in score order, cut to maxDets[-1]; once per
      // (image, category), reordered per area range below.
      std::vector<size_t> d_order = by_score(d_all);
      if (static_cast<int64_t>(d_order.size()) > max_det_last) d_order.resize(max_det_last);
      const size_t D = d_order.size();
      const size_t G = g_all.size();
      ious_all.resize(D * G);
      for (size_t d = 0; d < D; ++d)
        for (size_t g = 0; g < G; ++g)
          ious_all[d * G + g] =
              kps    ? keypoint_oks(*d_all[d_order[d]]->keypoints, *g_all[g], kp_vars)
              : segm ? mask::iou(*d_all[d_order[d]]->rle, g_all[g]->segmentation, g_all[g]->iscrowd)
                     : box_iou(d_all[d_order[d]]->bbox, g_all[g]->bbox, g_all[g]->iscrowd);
      for (int64_t a = 0; a < A; ++a) {
        const auto& rng = p.area_ranges[a];
        std::vector<uint8_t> g_ignore(G);
        for (size_t g = 0; g < G; ++g)
          g_ignore[g] = g_all[g]->iscrowd || (kps && g_all[g]->num_keypoints == 0) || g_all[g]->area < rng[0] ||
                        g_all[g]->area > rng[1];
        std::vector<size_t> g_order(G);
        std::iota(g_order.begin(), g_order.end(), size_t{0});
        std::stable_sort(g_order.begin(), g_order.end(),
                         [&](size_t x, size_t y) { return g_ignore[x] < g_ignore[y]; });
        ImageEval e;
        e.scores.resize(D);
        e.matched.assign(static_cast<size_t>(T) * D, 0);
        e.ignored.assign(static_cast<size_t>(T) * D, 0);
        for (size_t g = 0; g < G; ++g) e.num_regular_gt += !g_ignore[g];
        ious.resize(D * G);
        for (size_t d = 0; d < D; ++d) {
          e.scores[d] = d_all[d_order[d]]->score;
          for (size_t g = 0; g < G; ++g) ious[d * G + g] = ious_all[d * G + g_order[g]];
        }
        for (int64_t t = 0; t < T; ++t) {
          std::vector<uint8_t> g_taken(G, 0);
          for (size_t d = 0; d < D; ++d) {
            double best = std::min(p.iou_thresholds[t], 1 - 1e-10);
            int64_t m = -1;
            for (size_t g = 0; g < G; ++g) {
              const size_t go = g_order[g];
              if (g_taken[g] && !g_all[go]->iscrowd) continue;
              if (m > -1 && !g_ignore[g_order[m]] && g_ignore[go]) break;
              if (ious[d * G + g] < best) continue;
              best = ious[d * G + g];
              m = static_cast<int64_t>(g);
            }
            const size_t td = static_cast<size_t>(t) * D + d;
            if (m == -1) {
              const double area = d_all[d_order[d]]->area;
              e.ignored[td] = area < rng[0] || area > rng[1];
              continue;
            }
            e.ignored[td] = g_ignore[g_order[m]];
            e.matched[td] = 1;
            g_taken[m] = 1;
          }
        }
        evals[static_cast<size_t>((k * A + a) * I + i)] = std::move(e);
      }
    }
  }

  // accumulate().
  result.precision = full({T, R, K, A, M}, -1.0, kFloat64);
  result.recall = full({T, K, A, M}, -1.0, kFloat64);
  result.scores = full({T, R, K, A, M}, -1.0, kFloat64);
  double* prec = result.precision.data_ptr<double>();
  double* rec = result.recall.data_ptr<double>();
  double* sc = result.scores.data_ptr<double>();
  const double eps = std::nextafter(1.0, 2.0) - 1.0;  // np.spacing(1)
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t a = 0; a < A; ++a) {
      // Every image's detections (images in image_ids order), sorted once:
      // a stable sort of each image's first max_det detections is the same
      // order restricted to them (ties keep their place in the concatenation).
      struct Entry {
        double score;
        const ImageEval* e;
        size_t d;
      };
      std::vector<Entry> all;
      int64_t npig = 0;
      bool any = false;
      for (int64_t i = 0; i < I; ++i) {
        const auto& e = evals[static_cast<size_t>((k * A + a) * I + i)];
        if (!e) continue;
        any = true;
        npig += e->num_regular_gt;
        for (size_t d = 0; d < e->scores.size(); ++d) all.push_back({e->scores[d], &*e, d});
      }
      if (!any || npig == 0) continue;
      std::stable_sort(all.begin(), all.end(), [](const Entry& x, const Entry& y) { return x.score > y.score; });
      std::vector<Entry> entries;
      for (int64_t m = 0; m < M; ++m) {
        const size_t max_det = static_cast<size_t>(p.max_dets[m]);
        entries.clear();
        for (const Entry& en : all)
          if (en.d < max_det) entries.push_back(en);
        const size_t nd = entries.size();
        std::vector<double> rc(nd), pr(nd);
        for (int64_t t = 0; t < T; ++t) {
          double tp = 0, fp = 0;
          for (size_t j = 0; j < nd; ++j) {
            const ImageEval& e = *entries[j].e;
            const size_t td = static_cast<size_t>(t) * e.scores.size() + entries[j].d;
            if (!e.ignored[td]) (e.matched[td] ? tp : fp) += 1;
            rc[j] = tp / static_cast<double>(npig);
            pr[j] = tp / (fp + tp + eps);
          }
          rec[(t * K + k) * A * M + a * M + m] = nd ? rc[nd - 1] : 0.0;
          for (size_t j = nd; j-- > 1;)
            if (pr[j] > pr[j - 1]) pr[j - 1] = pr[j];
          for (int64_t r = 0; r < R; ++r) {
            const size_t pi = static_cast<size_t>(
                std::lower_bound(rc.begin(), rc.end(), p.recall_thresholds[r]) - rc.begin());
            const int64_t at = (((t * R + r) * K + k) * A + a) * M + m;
            // pycocotools' try/except: thresholds past the last detection keep 0.
            prec[at] = pi < nd ? pr[pi] : 0.0;
            sc[at] = pi < nd ? entries[pi].score : 0.0;
          }
        }
      }
    }
  }

  // summarize().
  auto area_index = [&](const std::string& label) -> int64_t {
    for (size_t a = 0; a < p.area_labels.size(); ++a)
      if (p.area_labels[a] == label) return static_cast<int64_t>(a);
    return -1;
  };
  auto max_det_index = [&](int64_t md) -> int64_t {
    for (size_t m = 0; m < p.max_dets.size(); ++m)
      if (p.max_dets[m] == md) return static_cast<int64_t>(m);
    return -1;
  };
  auto iou_index = [&](double thr) -> int64_t {
    for (size_t t = 0; t < p.iou_thresholds.size(); ++t)
      if (p.iou_thresholds[t] == thr) return static_cast<int64_t>(t);
    return -1;
  };
  auto summarize = [&](bool ap, double iou_thr, const std::string& area, int64_t md) {
    const int64_t a = area_index(area), m = max_det_index(md);
    const int64_t t_only = iou_thr < 0 ? -1 : iou_index(iou_thr);
    if (a < 0 || m < 0 || (iou_thr >= 0 && t_only < 0)) return -1.0;
    double sum = 0;
    int64_t count = 0;
    for (int64_t t = 0; t < T; ++t) {
      if (t_only >= 0 && t != t_only) continue;
      for (int64_t k = 0; k < K; ++k) {
        if (ap) {
          for (int64_t r = 0; r < R; ++r) {
            const double v = prec[(((t * R + r) * K + k) * A + a) * M + m];
            if (v > -1) sum += v, ++count;
          }
        } else {
          const double v = rec[(t * K + k) * A * M + a * M + m];
          if (v > -1) sum += v, ++count;
        }
      }
    }
    return count ? sum / static_cast<double>(count) : -1.0;
  };
  if (kps) {
    // _summarizeKps: every stat at maxDets 20.
    result.stats = {summarize(true, -1, "all", 20),     summarize(true, 0.5, "all", 20),
                    summarize(true, 0.75, "all", 20),   summarize(true, -1, "medium", 20),
                    summarize(true, -1, "large", 20),   summarize(false, -1, "all", 20),
                    summarize(false, 0.5, "all", 20),   summarize(false, 0.75, "all", 20),
                    summarize(false, -1, "medium", 20), summarize(false, -1, "large", 20)};
    return result;
  }
  const int64_t md0 = p.max_dets[0];
  const int64_t md1 = p.max_dets.size() > 1 ? p.max_dets[1] : -1;
  const int64_t md2 = p.max_dets.size() > 2 ? p.max_dets[2] : -1;
  result.stats = {summarize(true, -1, "all", md2),       summarize(true, 0.5, "all", md2),
                  summarize(true, 0.75, "all", md2),     summarize(true, -1, "small", md2),
                  summarize(true, -1, "medium", md2),    summarize(true, -1, "large", md2),
                  summarize(false, -1, "all", md0),      summarize(false, -1, "all", md1),
                  summarize(false, -1, "all", md2),      summarize(false, -1, "small", md2),
                  summarize(false, -1, "medium", md2),   summarize(false, -1, "large", md2)};
  return result;
}

std::string CocoEvalResult::summary() const {
  const auto& p = params;
  char iou_all[32];
  std::snprintf(iou_all, sizeof iou_all, "%0.2f:%0.2f", p.iou_thresholds.front(), p.iou_thresholds.back());
  auto md = [&](size_t i) { return i < p.max_dets.size() ? p.max_dets[i] : int64_t{-1}; };
  struct Line {
    bool ap;
    const char* iou;
    const char* area;
    int64_t max_dets;
  };
  const Line kp_lines[10] = {{true, iou_all, "all", 20},      {true, "0.50", "all", 20},
                             {true, "0.75", "all", 20},       {true, iou_all, "medium", 20},
                             {true, iou_all, "large", 20},    {false, iou_all, "all", 20},
                             {false, "0.50", "all", 20},      {false, "0.75", "all", 20},
                             {false, iou_all, "medium", 20},  {false, iou_all, "large", 20}};
  const Line box_lines[12] = {{true, iou_all, "all", md(2)},    {true, "0.50", "all", md(2)},
                          {true, "0.75", "all", md(2)},     {true, iou_all, "small", md(2)},
                          {true, iou_all, "medium", md(2)}, {true, iou_all, "large", md(2)},
                          {false, iou_all, "all", md(0)},   {false, iou_all, "all", md(1)},
                          {false, iou_all, "all", md(2)},   {false, iou_all, "small", md(2)},
                          {false, iou_all, "medium", md(2)}, {false, iou_all, "large", md(2)}};
  const bool kps = p.iou_type == "keypoints";
  const Line* lines = kps ? kp_lines : box_lines;
  const size_t n = std::min<size_t>(kps ? 10 : 12, stats.size());
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const Line& l = lines[i];
    // ' {:<18} {} @[ IoU={:<9} | area={:>6s} | maxDets={:>3d} ] = {:0.3f}'
    char buf[160];
    std::snprintf(buf, sizeof buf, " %-18s %s @[ IoU=%-9s | area=%6s | maxDets=%3lld ] = %0.3f\n",
                  l.ap ? "Average Precision" : "Average Recall", l.ap ? "(AP)" : "(AR)", l.iou, l.area,
                  static_cast<long long>(l.max_dets), stats[i]);
    out += buf;
  }
  return out;
}

CocoEvaluator::CocoEvaluator(CocoGroundTruth ground_truth, CocoEvalParams params)
    : ground_truth_(std::move(ground_truth)), params_(std::move(params)) {}

void CocoEvaluator::update(int64_t image_id, const Tensor& boxes, const Tensor& scores, const Tensor& labels) {
  EMBER_CHECK(boxes.dim() == 2 && boxes.size(1) == 4, "CocoEvaluator.update: boxes must be [N, 4], got ",
              boxes.sizes());
  const int64_t n = boxes.size(0);
  EMBER_CHECK(scores.dim() == 1 && scores.size(0) == n && labels.dim() == 1 && labels.size(0) == n,
              "CocoEvaluator.update: expected scores and labels of shape [", n, "] for ", n, " boxes, got ",
              scores.sizes(), " and ", labels.sizes());
  Tensor b = boxes.cpu().to(kFloat64).contiguous();
  Tensor s = scores.cpu().to(kFloat64).contiguous();
  Tensor l = labels.cpu().to(kInt64).contiguous();
  const double* bp = b.data_ptr<double>();
  const double* sp = s.data_ptr<double>();
  const int64_t* lp = l.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const double* r = bp + 4 * i;
    detections_.push_back({image_id, lp[i], {r[0], r[1], r[2] - r[0], r[3] - r[1]}, sp[i]});
  }
}

void CocoEvaluator::update_masks(int64_t image_id, const Tensor& masks, const Tensor& scores, const Tensor& labels,
                                 double threshold) {
  EMBER_CHECK(masks.defined() && (masks.dim() == 3 || (masks.dim() == 4 && masks.size(1) == 1)),
              "CocoEvaluator.update_masks: masks must be [N, H, W] or [N, 1, H, W], got ",
              masks.defined() ? masks.sizes() : IntArrayRef{});
  const int64_t n = masks.size(0);
  EMBER_CHECK(scores.dim() == 1 && scores.size(0) == n && labels.dim() == 1 && labels.size(0) == n,
              "CocoEvaluator.update_masks: expected scores and labels of shape [", n, "] for ", n, " masks, got ",
              scores.sizes(), " and ", labels.sizes());
  const Tensor m = (masks.dim() == 4 ? masks.select(1, 0) : masks).cpu().to(kFloat64) > threshold;
  Tensor s = scores.cpu().to(kFloat64).contiguous();
  Tensor l = labels.cpu().to(kInt64).contiguous();
  for (int64_t i = 0; i < n; ++i) {
    CocoDetectionResult d{image_id, l.data_ptr<int64_t>()[i], {}, s.data_ptr<double>()[i]};
    d.segmentation = mask::encode(m.select(0, i));
    d.has_segmentation = true;
    // torchvision's results carry no "bbox": loadRes's tight box and mask area.
    d.bbox = mask::to_bbox(d.segmentation);
    d.area = mask::area(d.segmentation);
    detections_.push_back(std::move(d));
  }
}

void CocoEvaluator::update_keypoints(int64_t image_id, const Tensor& keypoints, const Tensor& scores,
                                     const Tensor& labels) {
  EMBER_CHECK(keypoints.defined() && keypoints.dim() == 3 && (keypoints.size(2) == 3 || keypoints.size(2) == 2),
              "CocoEvaluator.update_keypoints: keypoints must be [N, K, 3] or [N, K, 2], got ",
              keypoints.defined() ? keypoints.sizes() : IntArrayRef{});
  const int64_t n = keypoints.size(0), k = keypoints.size(1), c = keypoints.size(2);
  EMBER_CHECK(scores.dim() == 1 && scores.size(0) == n && labels.dim() == 1 && labels.size(0) == n,
              "CocoEvaluator.update_keypoints: expected scores and labels of shape [", n, "] for ", n,
              " instances, got ", scores.sizes(), " and ", labels.sizes());
  Tensor kp = keypoints.cpu().to(kFloat64).contiguous();
  Tensor s = scores.cpu().to(kFloat64).contiguous();
  Tensor l = labels.cpu().to(kInt64).contiguous();
  const double* kpp = kp.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i) {
    CocoDetectionResult d{image_id, l.data_ptr<int64_t>()[i], {}, s.data_ptr<double>()[i]};
    d.keypoints.resize(static_cast<size_t>(3 * k));
    for (int64_t j = 0; j < k; ++j) {
      const double* q = kpp + (i * k + j) * c;
      d.keypoints[3 * j] = q[0], d.keypoints[3 * j + 1] = q[1], d.keypoints[3 * j + 2] = c == 3 ? q[2] : 1.0;
    }
    d.bbox = keypoint_box(d.keypoints);
    d.area = d.bbox[2] * d.bbox[3];
    detections_.push_back(std::move(d));
  }
}

CocoEvalResult CocoEvaluator::evaluate() const { return coco_evaluate(ground_truth_, detections_, params_); }

namespace {

std::string read_text(const std::string& path, const char* what) {
  Tensor bytes = io::read_file(path);
  EMBER_CHECK(bytes.numel() > 0, what, ": ", path, " is empty");
  return std::string(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()), static_cast<size_t>(bytes.numel()));
}

std::array<double, 4> read_bbox(serialize::json::Cursor& in, const char* what, size_t at) {
  std::array<double, 4> box{};
  in.begin_array();
  size_t n = 0;
  while (in.next_element()) {
    const double v = in.read_number();
    if (n < 4) box[n] = v;
    ++n;
  }
  EMBER_CHECK(n == 4, what, ": the record at byte ", at, " has a bbox of ", n,
              " numbers (expected 4: x, y, width, height)");
  return box;
}

// A "keypoints" value: x, y, v triples.
std::vector<double> read_keypoints(serialize::json::Cursor& in, const char* what, size_t at) {
  std::vector<double> kp;
  in.begin_array();
  while (in.next_element()) kp.push_back(in.read_number());
  EMBER_CHECK(kp.size() % 3 == 0, what, ": the record at byte ", at, " has ", kp.size(),
              " keypoint numbers (expected x, y, v triples)");
  return kp;
}

// A "segmentation" value: polygons [[x0, y0, ...], ...] or an RLE
// {"size": [h, w], "counts": "string" or [runs]}.
struct Segmentation {
  std::vector<std::vector<double>> polygons;
  mask::Rle rle;
  bool is_rle = false;
};

Segmentation read_segmentation(serialize::json::Cursor& in, const char* what, size_t at) {
  Segmentation out;
  if (in.peek() == '[') {
    in.begin_array();
    while (in.next_element()) {
      std::vector<double>& poly = out.polygons.emplace_back();
      in.begin_array();
      while (in.next_element()) poly.push_back(in.read_number());
    }
    return out;
  }
  out.is_rle = true;
  std::string member, counts_string;
  bool has_size = false, has_counts = false, counts_is_string = false;
  in.begin_object();
  while (in.next_member(member)) {
    if (member == "size") {
      std::vector<int64_t> size;
      in.begin_array();
      while (in.next_element()) size.push_back(in.read_integer());
      EMBER_CHECK(size.size() == 2, what, ": the record at byte ", at, " has an RLE \"size\" of ", size.size(),
                  " numbers (expected [height, width])");
      out.rle.height = size[0], out.rle.width = size[1], has_size = true;
    } else if (member == "counts") {
      has_counts = true;
      if (in.peek() == '"') {
        counts_string = in.read_string(), counts_is_string = true;
      } else {
        in.begin_array();
        while (in.next_element()) {
          const int64_t c = in.read_integer();
          EMBER_CHECK(c >= 0 && c <= int64_t{0xffffffff}, what, ": the record at byte ", at,
                      " has an RLE run of ", c);
          out.rle.counts.push_back(static_cast<uint32_t>(c));
        }
      }
    } else {
      in.skip_value();
    }
  }
  EMBER_CHECK(has_size && has_counts, what, ": the record at byte ", at,
              " has a segmentation that is neither polygons nor an RLE with \"size\" and \"counts\"");
  if (counts_is_string) {
    out.rle = mask::from_string(counts_string, out.rle.height, out.rle.width);
  } else {
    uint64_t total = 0;
    for (uint32_t c : out.rle.counts) total += c;
    EMBER_CHECK(total == static_cast<uint64_t>(out.rle.height * out.rle.width), what, ": the record at byte ", at,
                " has an RLE whose runs cover ", total, " pixels of ", out.rle.height, " x ", out.rle.width);
  }
  return out;
}

}  // namespace

CocoGroundTruth CocoGroundTruth::from_json(const std::string& path) {
  return from_json_text(read_text(path, "CocoGroundTruth.from_json"));
}

CocoGroundTruth CocoGroundTruth::from_json_text(const std::string& text) {
  constexpr const char* kWhat = "CocoGroundTruth.from_json";
  serialize::json::Cursor in(text, kWhat);
  CocoGroundTruth gt;
  in.begin_object();
  std::string key, member;
  bool has_images = false, has_categories = false;
  // Polygons wait for their image's size (images may follow annotations).
  std::vector<std::pair<size_t, std::vector<std::vector<double>>>> polygons;
  while (in.next_member(key)) {
    if (key == "images" || key == "categories") {
      const bool images = key == "images";
      auto& ids = images ? gt.image_ids : gt.category_ids;
      (images ? has_images : has_categories) = true;
      in.begin_array();
      while (in.next_element()) {
        const size_t at = in.offset();
        bool has_id = false;
        std::array<int64_t, 2> size{0, 0};
        in.begin_object();
        while (in.next_member(member)) {
          if (member == "id") {
            ids.push_back(in.read_integer());
            has_id = true;
          } else if (images && (member == "height" || member == "width")) {
            size[member == "width"] = in.read_integer();
          } else {
            in.skip_value();
          }
        }
        EMBER_CHECK(has_id, kWhat, ": the ", key, " record at byte ", at, " has no \"id\"");
        if (images) gt.image_sizes.push_back(size);
      }
    } else if (key == "annotations") {
      in.begin_array();
      while (in.next_element()) {
        const size_t at = in.offset();
        CocoGroundTruthBox a;
        bool has[4] = {false, false, false, false}, has_area = false, has_num_keypoints = false;
        in.begin_object();
        while (in.next_member(member)) {
          if (member == "id") {
            a.id = in.read_integer(), has[0] = true;
          } else if (member == "image_id") {
            a.image_id = in.read_integer(), has[1] = true;
          } else if (member == "category_id") {
            a.category_id = in.read_integer(), has[2] = true;
          } else if (member == "bbox") {
            a.bbox = read_bbox(in, kWhat, at), has[3] = true;
          } else if (member == "area") {
            a.area = in.read_number(), has_area = true;
          } else if (member == "iscrowd") {
            const char c = in.peek();
            a.iscrowd = (c == 't' || c == 'f') ? in.read_bool() : in.read_integer() != 0;
          } else if (member == "keypoints") {
            a.keypoints = read_keypoints(in, kWhat, at);
          } else if (member == "num_keypoints") {
            a.num_keypoints = in.read_integer(), has_num_keypoints = true;
          } else if (member == "segmentation") {
            Segmentation seg = read_segmentation(in, kWhat, at);
            if (seg.is_rle) {
              a.segmentation = std::move(seg.rle), a.has_segmentation = true;
            } else if (!seg.polygons.empty()) {
              polygons.emplace_back(gt.annotations.size(), std::move(seg.polygons));
            }
          } else {
            in.skip_value();
          }
        }
        static const char* kNames[4] = {"id", "image_id", "category_id", "bbox"};
        for (int f = 0; f < 4; ++f)
          EMBER_CHECK(has[f], kWhat, ": the annotation at byte ", at, " has no \"", kNames[f], "\"");
        if (!has_area) a.area = a.bbox[2] * a.bbox[3];
        if (!has_num_keypoints)
          for (size_t j = 2; j < a.keypoints.size(); j += 3) a.num_keypoints += a.keypoints[j] > 0;
        gt.annotations.push_back(a);
      }
    } else {
      in.skip_value();
    }
  }
  in.finish();
  // COCO.annToRLE: an object's polygons, rasterized at its image's size and
  // merged. Annotations of images the file does not list stay without a mask
  // (they are never evaluated).
  std::unordered_map<int64_t, std::array<int64_t, 2>> sizes;
  for (size_t i = 0; i < gt.image_ids.size(); ++i) sizes.emplace(gt.image_ids[i], gt.image_sizes[i]);
  for (auto& [index, polys] : polygons) {
    CocoGroundTruthBox& a = gt.annotations[index];
    // Without the image's size the polygons cannot be rasterized: box
    // evaluation does not need them, segm evaluation reports the annotation.
    auto it = sizes.find(a.image_id);
    if (it == sizes.end() || it->second[0] <= 0 || it->second[1] <= 0) continue;
    a.segmentation = mask::from_polygons(polys, it->second[0], it->second[1]);
    a.has_segmentation = true;
  }
  EMBER_CHECK(has_images && has_categories, kWhat, ": the file has no \"", has_images ? "categories" : "images",
              "\" list (an instances JSON has images, annotations and categories)");
  return gt;
}

std::vector<CocoDetectionResult> load_coco_results(const std::string& path) {
  return coco_results_from_json_text(read_text(path, "load_coco_results"));
}

std::vector<CocoDetectionResult> coco_results_from_json_text(const std::string& text) {
  constexpr const char* kWhat = "load_coco_results";
  serialize::json::Cursor in(text, kWhat);
  std::vector<CocoDetectionResult> out;
  std::string member;
  in.begin_array();
  while (in.next_element()) {
    const size_t at = in.offset();
    CocoDetectionResult d;
    bool has[4] = {false, false, false, false};
    in.begin_object();
    while (in.next_member(member)) {
      if (member == "image_id") {
        d.image_id = in.read_integer(), has[0] = true;
      } else if (member == "category_id") {
        d.category_id = in.read_integer(), has[1] = true;
      } else if (member == "bbox") {
        d.bbox = read_bbox(in, kWhat, at), has[2] = true;
      } else if (member == "score") {
        d.score = in.read_number(), has[3] = true;
      } else if (member == "segmentation") {
        Segmentation seg = read_segmentation(in, kWhat, at);
        EMBER_CHECK(seg.is_rle, kWhat, ": the result at byte ", at,
                    " has a polygon segmentation; results carry RLEs (pycocotools' loadRes)");
        d.segmentation = std::move(seg.rle), d.has_segmentation = true;
      } else if (member == "keypoints") {
        d.keypoints = read_keypoints(in, kWhat, at);
      } else {
        in.skip_value();
      }
    }
    // A mask result without a box: loadRes's tight box and the mask's area.
    if (!has[2] && d.has_segmentation) {
      d.bbox = mask::to_bbox(d.segmentation), d.area = mask::area(d.segmentation), has[2] = true;
    }
    // A keypoints result without a box: its keypoints' tight box and area (loadRes).
    if (!has[2] && !d.keypoints.empty()) {
      d.bbox = keypoint_box(d.keypoints), d.area = d.bbox[2] * d.bbox[3], has[2] = true;
    }
    static const char* kNames[4] = {"image_id", "category_id", "bbox", "score"};
    for (int f = 0; f < 4; ++f)
      EMBER_CHECK(has[f], kWhat, ": the result at byte ", at, " has no \"", kNames[f],
                  "\" (results: image_id, category_id, bbox and/or segmentation or keypoints, score)");
    out.push_back(d);
  }
  in.finish();
  return out;
}

}  // namespace ember::vision::detection
