# Varnish as the shared cache between the proxies (ORIGIN_URL) and the nginx origin (README,
# "Deploying", (b)). Many proxies, one origin request per body: Varnish merges concurrent misses
# for one URL into one backend fetch (request coalescing) and keeps what it fetched.
#
# A template, not a configuration: deploy/varnish.ts fills in the @…@ placeholders (the origin's
# address and the proxies' secret header) and writes the result mode 0600, since it holds the
# secret. test/system/varnish.test.ts runs exactly that rendering against a real varnishd and nginx.
#
#   ORIGIN_HEADER="X-Origin-Secret: $SECRET" npx tsx deploy/varnish.ts \
#     --out /var/lib/refdata-cache/varnish.vcl --origin 10.0.0.5:8081
#   varnishd -C -f /var/lib/refdata-cache/varnish.vcl >/dev/null    # compiles, or says why not
#
# The path rules (vcl_backend_response) are the part to adjust when the origin's layout changes.

vcl 4.1;

import std;

backend origin {
    .host = "@ORIGIN_HOST@";
    .port = "@ORIGIN_PORT@";
    # The proxies give up after 2 s to connect and 5 s for headers; failing sooner here lets a
    # stale copy be served (grace) while they still wait.
    .connect_timeout = 1s;
    .first_byte_timeout = 4s;
    .between_bytes_timeout = 8s;
    # Whether the origin is up decides how stale an answer may be (vcl_recv). The probe carries
    # the secret, so an origin refusing it (a secret changed on one side only) counts as down too,
    # and the copies held keep being served instead of 403s.
    .probe = {
        .request =
            "HEAD /manifest.json HTTP/1.1"
            "Host: refdata-origin"
            "@SECRET_NAME@: @SECRET_VALUE@"
            "Connection: close";
        .expected_response = 200;
        .interval = 1s;
        .timeout = 1s;
        .window = 3;
        .threshold = 2;
        .initial = 2;
    }
}

sub vcl_recv {
    # The cache holds every body of the build and checks no token: without the proxies' secret,
    # 403 here, before any lookup, so the cache is never an open window onto the origin.
    if (req.http.@SECRET_NAME@ != "@SECRET_VALUE@") {
        return (synth(403));
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (synth(405));
    }
    # Origin up: an expired copy is served at most 2 s past its TTL, while it is refetched in the
    # background. Origin down: the whole grace (vcl_backend_response), so lookups keep working.
    if (std.healthy(req.backend_hint)) {
        set req.grace = 2s;
    }
    # The built-in vcl_recv would pass any request with an Authorization header or a cookie; the
    # proxies send neither, and everything admitted above is cacheable.
    return (hash);
}

sub vcl_hash {
    # The URL alone: proxies that name the cache by different host names share one copy.
    hash_data(req.url);
    return (lookup);
}

sub vcl_backend_response {
    # Only a 200 is content (a 304 revalidating a held copy arrives here as that copy's 200).
    # 403 (a wrong secret), 404 and 5xx are passed on once and never kept, and a failed refresh
    # leaves the held copy in place.
    if (beresp.status != 200) {
        if (bereq.is_bgfetch) {
            return (abandon);
        }
        set beresp.ttl = 0s;
        set beresp.grace = 0s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    # nginx sends "private, no-cache" so that no cache outside this deployment keeps a body; this
    # one is part of the origin, so its TTLs are set here by path and the header is passed on.
    if (bereq.url ~ "^/builds/[^/]+/") {
        # Build-scoped: a path names one build's file, whose bytes never change. Kept a year.
        set beresp.ttl = 365d;
        set beresp.grace = 1d;
    } elsif (bereq.url ~ "^/lookups/[A-Za-z0-9_-]+\.(idx|pack)$") {
        # A shard of the root layout's lookup index, or the pack of its bodies (which proxies read
        # by range: Varnish fetches the whole pack once and answers ranges from it): named by its
        # content's hash, so its bytes never change either. Kept a year.
        set beresp.ttl = 365d;
        set beresp.grace = 1d;
    } elsif (bereq.url ~ "^/(builds/current|current|manifest)\.json$" || bereq.url == "/lookups.idx") {
        # Which build is current (and the root layout's index of it): rechecked every second (a
        # bodiless 304 from nginx when unchanged), so a new build reaches the proxies' next poll.
        set beresp.ttl = 1s;
        set beresp.grace = 7d;
    } else {
        # The root layout: a body's path keeps its name from build to build while its bytes
        # change, so it cannot be kept long. A copy older than the current build is refused by the
        # proxy (it checks every body against the manifest's hash) with 503 "switching builds"
        # until the copy expires: 10 s, the proxies' own manifest poll.
        set beresp.ttl = 10s;
        set beresp.grace = 7d;
    }
    return (deliver);
}

sub vcl_deliver {
    # For whoever reads a response by hand: whether it came from this cache.
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}
