"""bench/http_bench.py's parts: the site it serves (settings, urls: production plus a trivial view), wrk, the
submissions sent while it measures, the goals and the report."""
