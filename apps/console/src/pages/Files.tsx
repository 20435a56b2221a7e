import type { UploadUrl } from '@persona-api/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ChangeEvent, useState } from 'react';
import { messageOf } from '../api';
import { useSignedIn } from '../session';

/**
 * The signed upload URL is built on the server's PUBLIC_BASE_URL; the console sends the bytes to the same
 * path on its own origin (the API server, or the dev proxy in front of it), so the PUT is never cross-origin.
 */
function sameOrigin(uploadUrl: string): string {
  const url = new URL(uploadUrl);
  return `${window.location.origin}${url.pathname}${url.search}`;
}

/** PUT with XMLHttpRequest: fetch cannot report upload progress. */
function putWithProgress(upload: UploadUrl, file: File, onProgress: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', sameOrigin(upload.upload_url));
    for (const [name, value] of Object.entries(upload.headers)) if (value) request.setRequestHeader(name, value);
    request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) return resolve();
      try {
        reject(new Error(JSON.parse(request.responseText).error.message));
      } catch {
        reject(new Error(`Upload failed with status ${request.status}`));
      }
    };
    request.onerror = () => reject(new Error('The upload was interrupted.'));
    request.send(file);
  });
}

/** Files of the first workspace, and the three-step upload with a progress bar. */
export function Files() {
  const { api } = useSignedIn();
  const client = useQueryClient();
  const workspaces = useQuery({ queryKey: ['workspaces'], queryFn: async () => (await api.GET('/workspaces', { params: { query: { limit: 100 } } })).data.data });
  const workspaceId = workspaces.data?.[0]?.id;
  const files = useQuery({
    queryKey: ['files', workspaceId],
    enabled: Boolean(workspaceId),
    queryFn: async () => (await api.GET('/files', { params: { query: { workspace_id: workspaceId!, limit: 50 } } })).data.data,
  });
  const [progress, setProgress] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const upload = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file || !workspaceId) return;
    setError(null);
    setMessage(null);
    setProgress(0);
    try {
      const { data: target } = await api.POST('/files/upload-url', {
        body: { file_name: file.name, file_type: (file.type || 'application/octet-stream') as never, file_size: file.size, workspace_id: workspaceId },
      });
      await putWithProgress(target, file, setProgress);
      const { data: record } = await api.POST('/files', { body: target.next_step.body });
      setMessage(`Uploaded ${record.name}.`);
      await client.invalidateQueries({ queryKey: ['files'] });
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      event.target.value = '';
    }
  };

  return (
    <section aria-labelledby="files-title">
      <h1 id="files-title">Files</h1>
      {workspaces.data?.length === 0 && <p>Create a workspace first: files belong to a workspace.</p>}
      <label>
        Upload a file
        <input type="file" onChange={upload} disabled={!workspaceId} />
      </label>
      {progress !== null && (
        <div className="meter">
          <div role="progressbar" aria-label="Upload progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(progress * 100)} className="meter-track">
            <div className="meter-fill" style={{ width: `${progress * 100}%` }} />
          </div>
        </div>
      )}
      {message && <p role="status">{message}</p>}
      {error && <p role="alert">{error}</p>}
      {(workspaces.error || files.error) && <p role="alert">{messageOf(workspaces.error ?? files.error)}</p>}
      {files.data?.length === 0 && <p>No files yet: upload one above.</p>}
      {files.data && files.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Size</th>
              <th scope="col">Uploaded</th>
            </tr>
          </thead>
          <tbody>
            {files.data.map((file) => (
              <tr key={file.id}>
                <td>{file.name}</td>
                <td>{file.type}</td>
                <td>{file.size === null ? "—" : `${(file.size / 1024).toFixed(1)} kB`}</td>
                <td>{new Date(file.created_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
