set -e -o pipefail
( hadoop-device protocol lab_disk "$WORK"/device-storage --not-fstype tmpfs
)
hadoop-device lab_disk fs -mkdir -p "$DATA"
hadoop-device lab_disk fs -put "$WORK"/.benchcamp-tools/karate.txt "$DATA"/graph.txt
hadoop-device lab_disk jar "$WORK"/.benchcamp-tools/graphmr.jar components -D mapreduce.map.speculative=false -D mapreduce.reduce.speculative=false -D mapreduce.job.reduce.slowstart.completedmaps=1.0 -D dfs.replication=1 -D mapreduce.job.running.map.limit=6 "$DATA"/graph.txt "$DATA"/out
ip netns exec benchcamp-device python3 -c '
import gzip, json, sys, time, urllib.error, urllib.request
base, wait_s, out = sys.argv[1].rstrip("/"), float(sys.argv[2]), sys.argv[3]
jobs = [job for job in sys.argv[4].split(",") if job]
def get(job, path):
    url = base + "/ws/v1/history/mapreduce/jobs/" + job + path
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)
for job in jobs:
    deadline = time.monotonic() + wait_s
    while True:
        try:
            document = {"job": get(job, "")}
            break
        except urllib.error.HTTPError as error:
            if error.code != 404 or time.monotonic() > deadline:
                sys.exit("job history of " + job + ": HTTP " + str(error.code) + " from " + base)
            time.sleep(1)
    document["counters"] = get(job, "/counters")
    document["tasks"] = get(job, "/tasks")
    tasks = (document["tasks"].get("tasks") or {}).get("task") or []
    document["attempts"] = {t["id"]: get(job, "/tasks/" + t["id"] + "/attempts") for t in tasks}
    document["conf"] = get(job, "/conf")
    with gzip.open(out + "/jobhistory-" + job + ".json.gz", "wt") as handle:
        json.dump(document, handle)
' http://127.0.0.1:19888 120 "$JOB" "$(sed -n 's/^graphmr: algorithm=.* job_ids=\([^ ]*\) .*/\1/p' "$JOB"/stdout.log | tail -n 1)"
