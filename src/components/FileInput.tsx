// Choosing a file (spec §2 shared UI): browse, drag and drop onto the area, or on a phone take a
// picture with the camera. Each way hands the chosen file to `onFile`; the area is one labelled
// group whose buttons work from the keyboard.
import { useId, useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';

export function FileInput({
  label,
  accept,
  onFile,
  disabled,
}: {
  label: string;
  /** The types taken, as an input's accept attribute ("image/*"). */
  accept: string;
  onFile: (file: File) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const labelId = useId();
  const browse = useRef<HTMLInputElement>(null);
  const camera = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const take = (files: FileList | null | undefined) => {
    const file = files?.[0];
    if (file && !disabled) onFile(file);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    take(event.dataTransfer.files);
  };
  return (
    <div
      role="group"
      aria-labelledby={labelId}
      data-testid="file-input"
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
      className={`rounded-lg border-2 border-dashed p-4 text-sm ${over ? 'border-brand bg-brand-light' : 'border-slate-400'}`}
    >
      <p id={labelId} className="font-medium">
        {label}
      </p>
      <p className="mt-1 text-slate-700">{t('fileInput.drop')}</p>
      <div className="mt-3 flex flex-wrap gap-2">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          disabled={disabled}
          onClick={() => browse.current?.click()}
        >
          {t('fileInput.browse')}
        </button>
        {/* A phone opens its camera for this one; a computer treats it as browsing. */}
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          disabled={disabled}
          onClick={() => camera.current?.click()}
        >
          {t('fileInput.camera')}
        </button>
      </div>
      <input
        ref={browse}
        type="file"
        accept={accept}
        className="sr-only"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="file-browse"
        onChange={(event) => {
          take(event.target.files);
          event.target.value = '';
        }}
      />
      <input
        ref={camera}
        type="file"
        accept={accept}
        capture="user"
        className="sr-only"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(event) => {
          take(event.target.files);
          event.target.value = '';
        }}
      />
    </div>
  );
}
