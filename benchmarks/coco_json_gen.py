#!/usr/bin/env python3
"""Writes a synthetic COCO instances file shaped like instances_train2017.json
(per image ~7.3 annotations; ~1 polygon of ~24 points with 2-decimal
coordinates; 1% crowd annotations with RLE counts), for measuring annotation
loaders (benchmarks/coco_json_load.cpp).

    python3 benchmarks/coco_json_gen.py OUT.json [IMAGES]

IMAGES defaults to 25000 (about 100 MB); 118287 is train2017's count (~470 MB).
"""
import json
import random
import sys


def main():
    out = sys.argv[1]
    n_images = int(sys.argv[2]) if len(sys.argv) > 2 else 25000
    rnd = random.Random(0)
    cats = [{"supercategory": "s%d" % (i // 10), "id": i + 1, "name": "category %d" % i} for i in range(80)]
    with open(out, "w") as f:
        f.write('{"info":{"description":"synthetic","version":"1.0","year":2017},"licenses":[{"url":"x","id":1,"name":"l"}],"images":[')
        for i in range(n_images):
            img = {"license": 1, "file_name": "%012d.jpg" % (i + 1), "coco_url": "http://images.cocodataset.org/train2017/%012d.jpg" % (i + 1),
                   "height": 480, "width": 640, "date_captured": "2013-11-14 11:18:45",
                   "flickr_url": "http://farm4.staticflickr.com/1/%d.jpg" % i, "id": i + 1}
            f.write(("," if i else "") + json.dumps(img, separators=(",", ":")))
        f.write('],"annotations":[')
        ann_id = 0
        for i in range(n_images):
            for _ in range(rnd.choice((4, 6, 7, 8, 9, 10))):
                ann_id += 1
                x, y = rnd.uniform(0, 500), rnd.uniform(0, 400)
                w, h = rnd.uniform(1, 140), rnd.uniform(1, 80)
                if rnd.random() < 0.01:
                    seg = {"counts": [rnd.randrange(0, 400) for _ in range(100)], "size": [480, 640]}
                    crowd = 1
                else:
                    pts = rnd.randrange(12, 37)
                    seg = [[round(rnd.uniform(x, x + w) if k % 2 == 0 else rnd.uniform(y, y + h), 2) for k in range(2 * pts)]]
                    crowd = 0
                ann = {"segmentation": seg, "area": round(w * h * 0.6, 5), "iscrowd": crowd, "image_id": i + 1,
                       "bbox": [round(x, 2), round(y, 2), round(w, 2), round(h, 2)], "category_id": rnd.randrange(1, 81),
                       "id": ann_id}
                f.write(("," if ann_id > 1 else "") + json.dumps(ann, separators=(",", ":")))
        f.write('],"categories":' + json.dumps(cats, separators=(",", ":")) + "}")


if __name__ == "__main__":
    main()
