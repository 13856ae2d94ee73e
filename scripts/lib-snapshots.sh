# Shared by scripts/check-experiments and scripts/refresh-snapshots (sourced, not run).
# Every experiment's --quick markdown goes to tests/snapshots/experiments/NAME.md; docs carry
# copies of them in blocks
#     <!-- generated: experiment NAME -->
#     command: `zonesim experiment run NAME --quick --markdown` (commit ...)
#     ...the snapshot...
#     <!-- end generated -->
# that scripts/refresh-snapshots fills and scripts/check-experiments compares.
SNAP=tests/snapshots/experiments
Z=target/release/zonesim

build_release() {
    cargo build --release --locked -q -p zonesim-cli
}

# Records whose rows the current code can judge again from their measurements
# (`zonesim experiment rederive`; the others are only made by simulating).
REDERIVABLE="results/paper/supgc-fio.json results/paper/supgc-mysql-write.json results/paper/supgc-mysql-rw.json"

# rederived_differs RECORD OUTDIR: re-judge RECORD into OUTDIR/; true when its outcome (rows,
# notes) differs from the record's, i.e. the record is stale against the current rows.
rederived_differs() {
    local rec=$1 dir=$2 c
    set +e
    "$Z" experiment rederive "$rec" --out "$dir" >/dev/null
    c=$?
    [ "$c" = 0 ] || [ "$c" = 1 ] || { set -e; echo "rederive $rec: exit $c" >&2; exit 2; }
    # Exit 0: the outcomes differ; 3: equal; anything else: the comparison failed.
    python3 - "$rec" "$dir" <<'PY'
import json, os, sys
a = json.load(open(sys.argv[1]))["outcome"]
b = json.load(open(os.path.join(sys.argv[2], a["name"] + ".json")))["outcome"]
sys.exit(0 if a != b else 3)
PY
    c=$?
    set -e
    [ "$c" = 0 ] || [ "$c" = 3 ] || { echo "rederive $rec: the comparison failed" >&2; exit 2; }
    [ "$c" = 0 ]
}

# run_all OUTDIR: each experiment's --quick markdown into OUTDIR/NAME.md; prints the verdict
# lines; returns 1 if any experiment has a failing row (not a marked known gap), 2 on error.
run_all() {
    local out=$1 rc=0 c
    for e in $($Z experiment list | awk '{print $1}'); do
        set +e
        "$Z" experiment run "$e" --quick --markdown --check-record >"$out/$e.md"
        c=$?
        set -e
        [ "$c" = 0 ] || [ "$c" = 1 ] || { echo "experiment $e: exit $c" >&2; return 2; }
        [ "$c" = 0 ] || rc=1
        grep '^verdict:' "$out/$e.md" | sed 's/^verdict: //'
    done
    return $rc
}

# Files with generated blocks.
generated_docs() {
    grep -l '^<!-- generated: experiment ' README.md docs/*.md 2>/dev/null || true
}

# block_body FILE NAME: the lines of NAME's block in FILE after its command line.
block_body() {
    awk -v n="$2" '
        $0 == "<!-- generated: experiment " n " -->" { inb = 1; first = 1; next }
        inb && $0 == "<!-- end generated -->" { inb = 0; next }
        inb && first { first = 0; next }
        inb { print }' "$1"
}

# fill_blocks FILE DIR COMMIT: replace every block's body in FILE with DIR/NAME.md.
fill_blocks() {
    local f=$1 dir=$2 commit=$3 tmp
    tmp=$(mktemp)
    awk -v dir="$dir" -v commit="$commit" '
        /^<!-- generated: experiment [^ ]+ -->$/ {
            print; n = $4; inb = 1
            print "command: `zonesim experiment run " n " --quick --markdown` (commit " commit ")"
            print ""
            while ((getline line < (dir "/" n ".md")) > 0) print line
            close(dir "/" n ".md")
            next
        }
        inb && $0 == "<!-- end generated -->" { inb = 0; print; next }
        inb { next }
        { print }' "$f" >"$tmp"
    mv "$tmp" "$f"
}

# Key tables of the device config: blocks
#     <!-- generated: config keys SECTION... -->
#     command: `zonesim config keys --markdown SECTION...`
#     ...its output...
#     <!-- end generated -->
# filled by fill_config_blocks (scripts/refresh-config-keys, scripts/refresh-snapshots) and
# compared by the test crates/zonesim/tests/config_keys.rs.
config_docs() {
    grep -l '^<!-- generated: config keys' README.md docs/*.md 2>/dev/null || true
}

# fill_config_blocks FILE ZONESIM: replace every config-keys block's body in FILE with the
# command's output.
fill_config_blocks() {
    local f=$1 z=$2 tmp
    tmp=$(mktemp)
    while IFS= read -r line; do
        printf '%s\n' "$line"
        case $line in
        '<!-- generated: config keys'*'-->')
            args=${line#<!-- generated: config keys}
            args=${args%-->}
            args=$(echo $args)
            printf 'command: `zonesim config keys --markdown %s`\n\n' "$args"
            # shellcheck disable=SC2086
            "$z" config keys --markdown $args
            while IFS= read -r line && [ "$line" != '<!-- end generated -->' ]; do :; done
            printf '%s\n' '<!-- end generated -->'
            ;;
        esac
    done <"$f" >"$tmp"
    mv "$tmp" "$f"
}

# Outputs of zonesim commands: blocks
#     <!-- generated: command ARGS... -->
#     command: `zonesim ARGS...`
#     ...its output...
#     <!-- end generated -->
# filled by fill_command_blocks (scripts/refresh-snapshots) and compared by
# scripts/check-experiments (the scoreboard of docs/experiments.md and README.md).
command_docs() {
    grep -l '^<!-- generated: command ' README.md docs/*.md 2>/dev/null || true
}

# fill_command_blocks FILE ZONESIM: replace every command block's body in FILE with the
# command's output.
fill_command_blocks() {
    local f=$1 z=$2 tmp
    tmp=$(mktemp)
    while IFS= read -r line; do
        printf '%s\n' "$line"
        case $line in
        '<!-- generated: command '*'-->')
            args=${line#<!-- generated: command }
            args=${args%-->}
            args=$(echo $args)
            printf 'command: `zonesim %s`\n\n' "$args"
            # shellcheck disable=SC2086
            "$z" $args
            while IFS= read -r line && [ "$line" != '<!-- end generated -->' ]; do :; done
            printf '%s\n' '<!-- end generated -->'
            ;;
        esac
    done <"$f" >"$tmp"
    mv "$tmp" "$f"
}
