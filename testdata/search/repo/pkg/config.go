package pkg

import "os"

// ParseConfig reads the configuration file at path.
func ParseConfig(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseLines(string(data)), nil
}

func parseLines(s string) map[string]string {
	return map[string]string{"raw": s}
}
