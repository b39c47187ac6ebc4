package host

import (
	"time"
)

// returnToDisk brings the root's index back to its disk once the disk has
// room again, after a full disk moved it to memory (at open or during a
// write): the index is refreshed there and its references resolved anew.
func (h *Host) returnToDisk(root string, ow *openWorkspace, p *passes) {
	defer p.wg.Done()
	tick := time.NewTicker(h.spaceRetry)
	defer tick.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-tick.C:
		}
		if !ow.ws.Index.SpaceFallback() {
			continue
		}
		ow.refresh.Lock()
		moved, err := ow.ws.ReturnToDisk(p.ctx)
		ow.refresh.Unlock()
		switch {
		case err != nil && p.ctx.Err() == nil:
			h.Log.Warn("returning the index to its disk failed", "root", root, "err", err)
		case moved:
			h.scheduleUses(p, usesDelay)
		}
	}
}
