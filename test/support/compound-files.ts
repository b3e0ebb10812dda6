/**
 * Hostile Compound File Binary files (the container of .doc, .xls, .ppt and .msg), written by hand.
 */

/**
 * A compound file with one stream named `streamName` whose sector chains loop: header, then sector
 * 0 the FAT, 1 the directory, 2 and 3 the stream; the directory's chain loops on itself and the
 * stream's runs 3 → 2 → 3. A reader that follows chains without a loop check never returns (and
 * fills memory on the way).
 */
export const loopingCompoundFile = (streamName: string): Buffer => {
  const file = Buffer.alloc(512 * 5)
  Buffer.from("d0cf11e0a1b11ae1", "hex").copy(file)
  file.writeUInt16LE(3, 0x1a) // major version
  file.writeUInt16LE(0xfffe, 0x1c)
  file.writeUInt16LE(9, 0x1e) // 512-byte sectors
  file.writeUInt16LE(6, 0x20)
  file.writeUInt32LE(1, 0x2c) // one FAT sector...
  file.writeUInt32LE(1, 0x30) // ...and the directory at sector 1
  file.writeUInt32LE(4096, 0x38)
  file.writeInt32LE(-2, 0x3c)
  file.writeInt32LE(-2, 0x44)
  file.fill(0xff, 0x4c, 512)
  file.writeUInt32LE(0, 0x4c) // the FAT is sector 0
  const fat = [-3, 1, 3, 2]
  file.fill(0xff, 512, 1024)
  fat.forEach((next, i) => file.writeInt32LE(next, 512 + 4 * i))
  const entry = (index: number, name: string, type: number, child: number, start: number, size: number) => {
    const at = 1024 + 128 * index
    file.write(name, at, "utf16le")
    file.writeUInt16LE(2 * (name.length + 1), at + 0x40)
    file[at + 0x42] = type
    file.writeInt32LE(-1, at + 0x44)
    file.writeInt32LE(-1, at + 0x48)
    file.writeInt32LE(child, at + 0x4c)
    file.writeInt32LE(start, at + 0x74)
    file.writeUInt32LE(size, at + 0x78)
  }
  entry(0, "Root Entry", 5, 1, -2, 0)
  entry(1, streamName, 2, -1, 3, 8192)
  return file
}
