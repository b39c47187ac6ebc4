package pkg

import "net/http"

// HTTPServer serves requests with a timeout.
type HTTPServer struct {
	Timeout int
}

// HandleRequest answers one HTTP request.
func (s *HTTPServer) HandleRequest(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
}

func retry_with_backoff(attempts int) int {
	return attempts * 2
}
