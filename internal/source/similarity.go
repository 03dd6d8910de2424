package source

// gitSimilarity returns the similarity index (0..100) `git diff -M` prints
// for a rename or copy of src to dst, computed as git's diffcore-delta.c and
// estimate_similarity() in diffcore-rename.c do: both files are cut into
// chunks ending at a newline or 64 bytes long (a chunk still open at the end
// of a file is not counted), each chunk's bytes are counted under its hash,
// and the score is the bytes of dst found in src over the larger size. In a
// text file a CR before LF is not counted. Sizes differing by more than the
// 50% threshold score 0, as in git.
func gitSimilarity(src, dst []byte) int {
	const maxScore = 60000 // git's MAX_SCORE
	const minScore = maxScore / 2
	if string(src) == string(dst) {
		return 100
	}
	maxSize, baseSize := uint64(len(src)), uint64(len(dst))
	if baseSize > maxSize {
		maxSize, baseSize = baseSize, maxSize
	}
	delta := maxSize - baseSize
	if maxSize*(maxScore-minScore) < delta*maxScore || len(dst) == 0 {
		return 0
	}
	srcCount := spanHashes(src, !isBinary(src))
	dstCount := spanHashes(dst, !isBinary(dst))
	var copied uint64
	for h, sc := range srcCount {
		copied += uint64(min(sc, dstCount[h]))
	}
	score := copied * maxScore / maxSize
	return int(score * 100 / maxScore)
}

// spanHashes is git's hash_chars(): byte counts per chunk hash.
func spanHashes(data []byte, isText bool) map[uint32]uint32 {
	const hashBase = 107927
	counts := map[uint32]uint32{}
	var n, accum1, accum2 uint32
	for i := 0; i < len(data); i++ {
		c := uint32(data[i])
		old1 := accum1
		if isText && c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		accum1 = (accum1 << 7) ^ (accum2 >> 25)
		accum2 = (accum2 << 7) ^ (old1 >> 25)
		accum1 += c
		n++
		if n < 64 && c != '\n' {
			continue
		}
		counts[(accum1+accum2*0x61)%hashBase] += n
		n, accum1, accum2 = 0, 0, 0
	}
	return counts
}
