package libraries

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Where JVM artifacts are cached: the local Maven repository lays them out
// as <group path>/<name>/<version>/<name>-<version>-sources.jar, Gradle's
// cache as files-2.1/<group>/<name>/<version>/<sha1>/<same file name>.

// mavenRepo is the local Maven repository: the override, else
// -Dmaven.repo.local in .mvn/maven.config or $MAVEN_OPTS, else
// <localRepository> in ~/.m2/settings.xml, else ~/.m2/repository.
func mavenRepo(root string, c Caches) string {
	if c.MavenRepo != "" {
		return c.MavenRepo
	}
	if data, err := readSmall(filepath.Join(root, ".mvn", "maven.config")); err == nil {
		if r := repoLocalFlag(string(data)); r != "" {
			return r
		}
	}
	if r := repoLocalFlag(os.Getenv("MAVEN_OPTS")); r != "" {
		return r
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	if data, err := readSmall(filepath.Join(home, ".m2", "settings.xml")); err == nil {
		var s struct {
			LocalRepository string `xml:"localRepository"`
		}
		if xml.Unmarshal(data, &s) == nil && filepath.IsAbs(strings.TrimSpace(s.LocalRepository)) {
			return strings.TrimSpace(s.LocalRepository)
		}
	}
	return filepath.Join(home, ".m2", "repository")
}

var repoLocal = regexp.MustCompile(`-Dmaven\.repo\.local=(\S+)`)

func repoLocalFlag(s string) string {
	if m := repoLocal.FindStringSubmatch(s); m != nil && filepath.IsAbs(strings.Trim(m[1], `"'`)) {
		return strings.Trim(m[1], `"'`)
	}
	return ""
}

// gradleFiles is Gradle's cache of downloaded artifacts.
func gradleFiles(c Caches) string {
	home := c.GradleHome
	if home == "" {
		home = os.Getenv("GRADLE_USER_HOME")
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = filepath.Join(h, ".gradle")
	}
	return filepath.Join(home, "caches", "modules-2", "files-2.1")
}

// findSourcesJar finds the -sources.jar of a at its version, else of the
// newest version either cache holds (with an OtherVersion skip saying so).
// jar is "" when there is none to use.
func findSourcesJar(repo, gradle string, a artifact) (jar, version string, skip *Skip) {
	name := a.Group + ":" + a.Name
	if !safeCoordinate(a) {
		return "", "", &Skip{Library: a.String(), Reason: BadBuildFile, Detail: "not a Maven coordinate"}
	}
	if a.Version != "" {
		if j := sourcesJarAt(repo, gradle, a); j != "" {
			return j, a.Version, nil
		}
	}
	cached := cachedVersions(repo, gradle, a)
	for i := len(cached) - 1; i >= 0; i-- {
		b := a
		b.Version = cached[i]
		if j := sourcesJarAt(repo, gradle, b); j != "" {
			why := "declared version " + a.Version + " is not cached; using " + b.Version
			if a.Version == "" {
				why = "no version declared; using the newest cached, " + b.Version
			}
			return j, b.Version, &Skip{Library: a.String(), Reason: OtherVersion, Detail: why}
		}
	}
	if len(cached) > 0 {
		return "", "", &Skip{Library: a.String(), Reason: NoSources, Detail: name + " is cached without a -sources.jar"}
	}
	return "", "", &Skip{Library: a.String(), Reason: NotDownloaded, Detail: name + " is in neither the Maven repository nor the Gradle cache"}
}

// safeCoordinate rules out coordinates that would name folders outside
// the caches.
func safeCoordinate(a artifact) bool {
	for _, s := range []string{a.Group, a.Name, a.Version} {
		if strings.Contains(s, "..") || strings.ContainsAny(s, `/\`) {
			return false
		}
	}
	return a.Group != "" && a.Name != ""
}

// sourcesJarAt is the cached -sources.jar of a's version, or "".
func sourcesJarAt(repo, gradle string, a artifact) string {
	file := a.Name + "-" + a.Version + "-sources.jar"
	if repo != "" {
		p := filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(a.Group, ".", "/")), a.Name, a.Version, file)
		if fileExists(p) {
			return p
		}
	}
	if gradle != "" {
		hashes, _ := filepath.Glob(filepath.Join(gradle, a.Group, a.Name, a.Version, "*", file))
		for _, p := range hashes {
			if fileExists(p) {
				return p
			}
		}
	}
	return ""
}

// cachedVersions lists the versions of a either cache holds, oldest first.
func cachedVersions(repo, gradle string, a artifact) []string {
	var out []string
	for _, dir := range []string{
		filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(a.Group, ".", "/")), a.Name),
		filepath.Join(gradle, a.Group, a.Name),
	} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				out = append(out, e.Name())
			}
		}
	}
	slices.SortFunc(out, compareVersions)
	return slices.Compact(out)
}

// compareVersions orders versions by their numeric parts, then text
// ("1.10" after "1.9"; a qualifier such as "-rc1" before the release).
func compareVersions(a, b string) int {
	pa, pb := versionParts(a), versionParts(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil && na != nb:
			if na < nb {
				return -1
			}
			return 1
		case ea == nil && eb != nil:
			return 1 // a release part beats a qualifier
		case ea != nil && eb == nil:
			return -1
		case ea != nil && eb != nil && pa[i] != pb[i]:
			return strings.Compare(pa[i], pb[i])
		}
	}
	switch {
	case len(pa) == len(pb):
		return 0
	case len(pa) > len(pb):
		// 1.0 beats 1.0-rc1; 1.0.1 beats 1.0.
		if _, err := strconv.Atoi(pa[len(pb)]); err == nil {
			return 1
		}
		return -1
	default:
		return -compareVersions(b, a)
	}
}

func versionParts(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' || r == '_' || r == '+' })
}

// sourcesRoot is where archives are extracted: the override, else the
// user cache's kast/libsrc, beside the library indexes.
func sourcesRoot(c Caches) string {
	if c.Sources != "" {
		return c.Sources
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" || !filepath.IsAbs(cache) {
		home, err := os.UserHomeDir()
		if err != nil {
			return filepath.Join(os.TempDir(), "kast-libsrc")
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "kast", "libsrc")
}
