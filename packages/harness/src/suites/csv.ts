/** One CSV record with the source position of the record and of each field. */
export interface CsvRecord {
  fields: string[];
  /** 1-based line of the record's first character. */
  line: number;
  /** 1-based line and column of each field's first character. */
  positions: { line: number; col: number }[];
}

/**
 * Incremental RFC 4180 parser: quoted fields with `""` escapes and embedded newlines, CRLF or LF. Feed it
 * text chunks; it returns complete records as they close, so a large file is never held whole.
 */
export class CsvParser {
  #field = '';
  #fields: string[] = [];
  #positions: { line: number; col: number }[] = [];
  #inQuotes = false;
  #quoteClosed = false;
  #fieldStarted = false;
  #line = 1;
  #col = 1;
  #recordLine = 1;
  #pendingCR = false;

  feed(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk.charAt(i);
      if (this.#pendingCR) {
        this.#pendingCR = false;
        if (ch === '\n') {
          this.#advance(ch);
          continue;
        }
      }
      if (!this.#fieldStarted) {
        this.#fieldStarted = true;
        if (this.#fields.length === 0) this.#recordLine = this.#line;
        this.#positions.push({ line: this.#line, col: this.#col });
        if (ch === '"') {
          this.#inQuotes = true;
          this.#advance(ch);
          continue;
        }
      }
      if (this.#inQuotes) {
        if (ch === '"') {
          if (chunk[i + 1] === '"') {
            this.#field += '"';
            this.#advance(ch);
            this.#advance(ch);
            i++;
            continue;
          }
          if (i + 1 === chunk.length) {
            // A quote at the end of a chunk may be the first of an escaped pair; decide on the next chunk.
            this.#inQuotes = false;
            this.#quoteClosed = true;
            this.#advance(ch);
            continue;
          }
          this.#inQuotes = false;
          this.#advance(ch);
          continue;
        }
        // Inside quotes everything up to the next quote is field text: take it in one slice (per character,
        // a 16 MiB quoted field took seconds).
        const next = chunk.indexOf('"', i);
        const end = next < 0 ? chunk.length : next;
        const text = chunk.slice(i, end);
        this.#field += text;
        const lastNl = text.lastIndexOf('\n');
        if (lastNl < 0) this.#col += text.length;
        else {
          for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) this.#line++;
          this.#col = text.length - lastNl;
        }
        i = end - 1;
        continue;
      }
      if (this.#quoteClosed && ch === '"') {
        // Second half of an escaped quote split across chunks.
        this.#field += '"';
        this.#inQuotes = true;
        this.#quoteClosed = false;
        this.#advance(ch);
        continue;
      }
      this.#quoteClosed = false;
      if (ch === ',') {
        this.#endField();
        this.#advance(ch);
        continue;
      }
      if (ch === '\n' || ch === '\r') {
        this.#endField();
        const rec = this.#endRecord();
        if (rec) out.push(rec);
        if (ch === '\r') this.#pendingCR = true;
        this.#advance('\n');
        continue;
      }
      this.#field += ch;
      this.#advance(ch);
    }
    return out;
  }

  /** Flush the last record (a file without a trailing newline). */
  end(): CsvRecord[] {
    if (this.#fieldStarted || this.#fields.length > 0) {
      this.#endField();
      const rec = this.#endRecord();
      return rec ? [rec] : [];
    }
    return [];
  }

  #advance(ch: string): void {
    if (ch === '\n') {
      this.#line++;
      this.#col = 1;
    } else this.#col++;
  }

  #endField(): void {
    if (!this.#fieldStarted && this.#fields.length === 0) return;
    this.#fields.push(this.#field);
    this.#field = '';
    this.#fieldStarted = false;
  }

  #endRecord(): CsvRecord | null {
    const fields = this.#fields;
    const positions = this.#positions.slice(0, fields.length);
    this.#fields = [];
    this.#positions = [];
    this.#fieldStarted = false;
    if (fields.length === 0 || (fields.length === 1 && fields[0] === '')) return null;
    return { fields, line: this.#recordLine, positions };
  }
}
