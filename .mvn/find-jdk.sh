# Sourced by ./mvnw and ./cryo: point JAVA_HOME at a JDK >= 21, or say in one line what is missing.
# Order: JAVA_HOME, then the java on PATH, then the JVM folders of the machine (newest first).

cryo_java_major() {
  # Prints the feature version of the JDK whose home is $1 (nothing when it is not a JDK).
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

cryo_find_jdk() {
  cryo_minimum=21
  cryo_candidates=""
  [ -n "${JAVA_HOME:-}" ] && cryo_candidates="$JAVA_HOME"
  if command -v java >/dev/null 2>&1; then
    cryo_on_path=$(readlink -f "$(command -v java)" 2>/dev/null)
    [ -n "$cryo_on_path" ] && cryo_candidates="$cryo_candidates
${cryo_on_path%/bin/java}"
  fi
  for cryo_root in /usr/lib/jvm /usr/java /opt/java /Library/Java/JavaVirtualMachines; do
    [ -d "$cryo_root" ] || continue
    cryo_candidates="$cryo_candidates
$(ls -d "$cryo_root"/*/ "$cryo_root"/*/Contents/Home/ 2>/dev/null | sed 's:/$::' | sort -rV)"
  done
  cryo_old_ifs=$IFS
  IFS='
'
  for cryo_home in $cryo_candidates; do
    [ -n "$cryo_home" ] || continue
    cryo_major=$(cryo_java_major "$cryo_home") || continue
    if [ -n "$cryo_major" ] && [ "$cryo_major" -ge "$cryo_minimum" ]; then
      IFS=$cryo_old_ifs
      JAVA_HOME=$cryo_home
      export JAVA_HOME
      return 0
    fi
  done
  IFS=$cryo_old_ifs
  echo "cryo: no JDK ${cryo_minimum} or newer found (looked at JAVA_HOME, the java on PATH and /usr/lib/jvm); install one or set JAVA_HOME to it." >&2
  return 1
}

cryo_find_jdk || exit 1
