package trust

// DecodeRecord exposes the decoding of stored records to the fuzz target.
func DecodeRecord(key, val []byte) (*Record, error) { return decodeRecord(key, val) }

// EncodeRecord exposes the encoding of stored records to the fuzz target.
var EncodeRecord = encodeRecord

// StoreKey exposes the key of a record.
var StoreKey = storeKey
