package toolsearch

import (
	"context"
	"encoding/binary"
	"sync/atomic"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/metatools-go/metatools/errors"
)

// textFields are the searched fields, in the order of fieldLengths.
var textFields = [...]string{nameField, namespaceField, tagsField, titleField, descriptionField, detailsField, paramNamesField, paramDescriptionField}

// fieldLengths holds the length of each text field of a document, in
// words after analysis (the words bleve indexes), in textFields order.
type fieldLengths [len(textFields)]uint32

// textFieldIndex returns the position of field in textFields, or -1.
func textFieldIndex(field string) int {
	for i, f := range textFields {
		if f == field {
			return i
		}
	}
	return -1
}

// fieldStats are the collection statistics BM25 normalises field lengths
// with: the total length of each field over the indexed documents, and
// their number. A value is never modified once published.
type fieldStats struct {
	total [len(textFields)]uint64
	docs  uint64
}

// average returns the average length of field i, at least 1.
func (f *fieldStats) average(i int) float64 {
	if f.docs == 0 {
		return 1
	}
	return max(1, float64(f.total[i])/float64(f.docs))
}

// lengthBook keeps the field lengths of every indexed document, and the
// totals published to queries. Its methods are called with the change
// lock held; queries read the totals with current, without a lock.
type lengthBook struct {
	byID  map[string]fieldLengths
	stats atomic.Pointer[fieldStats]
	next  fieldStats // the totals as the changes under way leave them
}

func newLengthBook() *lengthBook {
	b := &lengthBook{byID: map[string]fieldLengths{}}
	b.stats.Store(&fieldStats{})
	return b
}

// current returns the published totals.
func (b *lengthBook) current() *fieldStats { return b.stats.Load() }

// set records the lengths of document id, replacing those it had.
func (b *lengthBook) set(id string, l fieldLengths) {
	b.drop(id)
	b.byID[id] = l
	for i, n := range l {
		b.next.total[i] += uint64(n)
	}
	b.next.docs++
}

// drop forgets document id.
func (b *lengthBook) drop(id string) {
	old, ok := b.byID[id]
	if !ok {
		return
	}
	delete(b.byID, id)
	for i, n := range old {
		b.next.total[i] -= uint64(n)
	}
	b.next.docs--
}

// publish makes the totals of the changes made so far visible to queries.
func (b *lengthBook) publish() {
	s := b.next
	b.stats.Store(&s)
}

// analysedLengths returns the lengths of the text fields of a document
// bleve has analysed.
func analysedLengths(doc index.Document) fieldLengths {
	var l fieldLengths
	doc.VisitFields(func(f index.Field) {
		if i := textFieldIndex(f.Name()); i >= 0 {
			l[i] = uint32(f.AnalyzedLength())
		}
	})
	return l
}

// loadLengths reads the field lengths of every document of an index that
// was opened from disk. They are not stored as such: each posting holds
// its field's norm, 1/sqrt(length), from which the length is recovered.
// It reads every posting of the text fields once, O(index size).
func (b *lengthBook) load(ctx context.Context, r index.IndexReader) error {
	byNum := map[uint64]*fieldLengths{}
	var tfd index.TermFieldDoc
	for i, field := range textFields {
		dict, err := r.FieldDict(field)
		if err != nil {
			return err
		}
		for {
			entry, err := dict.Next()
			if err != nil || entry == nil {
				_ = dict.Close()
				if err != nil {
					return err
				}
				break
			}
			tfr, err := r.TermFieldReader(ctx, []byte(entry.Term), field, false, true, false)
			if err != nil {
				_ = dict.Close()
				return err
			}
			err = postings(ctx, tfr, &tfd, func(d *index.TermFieldDoc) error {
				num, err := docNum(d.ID)
				if err != nil {
					return err
				}
				l := byNum[num]
				if l == nil {
					l = new(fieldLengths)
					byNum[num] = l
				}
				if l[i] == 0 && d.Norm > 0 {
					l[i] = uint32(fieldLength(d.Norm))
				}
				return nil
			})
			if cerr := tfr.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				_ = dict.Close()
				return err
			}
		}
	}
	var id [8]byte
	for num, l := range byNum {
		binary.BigEndian.PutUint64(id[:], num)
		ext, err := r.ExternalID(id[:])
		if err != nil {
			return err
		}
		if ext == "" {
			return errors.Errorf(errors.Internal, "document %d has no ID", num)
		}
		b.set(ext, *l)
	}
	b.publish()
	return nil
}
