#!/usr/bin/env bash
# (Copied from the team's scripts so the benchmark needs nothing beside the clone.)
# Builds an airspeed-velocity (asv 0.6) project with a long history, for side-by-side site benchmarks:
# N commits x S benchmarks, one real `asv run` result replicated over every commit with +-5 % noise and
# a planted +30 % regression in series 3 after 60 % of the history. Then `asv publish` can be timed
# against `perfhouse site` on the same history (ingested from the asv results).
# Usage: asv-history.sh DIR [N=1000] [S=20]    (needs python3; installs asv into DIR/venv)
set -eu
DIR=${1:?dir}; N=${2:-1000}; S=${3:-20}
mkdir -p "$DIR" && cd "$DIR"
[ -x venv/bin/asv ] || { python3 -m venv venv && venv/bin/pip install -q asv==0.6.6; }
rm -rf proj && mkdir -p proj/benchmarks && cd proj && git init -q -b master
cat > asv.conf.json <<JSON
{"version": 1, "project": "demo", "project_url": "http://example.invalid/", "repo": ".", "branches": ["master"],
 "environment_type": "existing", "results_dir": "results", "html_dir": "html", "benchmark_dir": "benchmarks",
 "build_command": [], "install_command": []}
JSON
: > benchmarks/__init__.py
for i in $(seq 0 $((S-1))); do printf 'def time_series_%d():\n    sum(range(%d))\n\n' $i $((1000*(i+1))) >> benchmarks/bench.py; done
git add -A && git -c user.email=a@b -c user.name=n commit -qm c0
for i in $(seq 1 $((N-1))); do
  GIT_COMMITTER_DATE="$((1790000000 + i*3600)) +0000" GIT_AUTHOR_DATE="$((1790000000 + i*3600)) +0000" \
    git -c user.email=a@b -c user.name=n commit -q --allow-empty -m "c$i"
done
../venv/bin/asv machine --yes --machine m1 > /dev/null
../venv/bin/asv run -E existing:"$DIR/venv/bin/python" --quick --machine m1 --set-commit-hash "$(git rev-list --max-parents=0 HEAD)" > /dev/null
../venv/bin/python - "$N" <<'PY'
import json, subprocess, random, glob, sys
src = glob.glob('results/m1/*-existing-*.json')[0]; d = json.load(open(src)); random.seed(2)
hashes = subprocess.run(['git', 'rev-list', '--reverse', 'HEAD'], capture_output=True, text=True).stdout.split()
for i, h in enumerate(hashes):
    e = json.loads(json.dumps(d)); e['commit_hash'] = h; e['date'] = (1790000000 + i * 3600) * 1000
    for k, v in e['results'].items():
        v[0][0] = v[0][0] * (1.3 if i > 0.6 * len(hashes) and k.endswith('_3') else 1.0) * random.uniform(0.95, 1.05)
    json.dump(e, open(f"results/m1/{h[:8]}-{e['env_name']}.json", 'w'))
PY
echo "asv project with $N commits x $S series in $DIR/proj; time it with: (cd $DIR/proj && ../venv/bin/asv publish)"
